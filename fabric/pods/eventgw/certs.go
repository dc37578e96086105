package eventgw

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// maxPEMBytes bounds a certificate or key file read for a webhook.
const maxPEMBytes = 1 << 20

// webhookCert returns the endpoint's certificate: the one it names (from
// the tenant's secrets or the tenant's own directory, never another
// path of the host), or a self-signed one for its address, generated once
// and kept in CertDir (the key readable by the owner only).
func (g *Gateway) webhookCert(ctx context.Context, c Config) (tls.Certificate, error) {
	if c.TLSCertFile != "" || c.TLSKeyFile != "" || c.TLSCertSecret != "" || c.TLSKeySecret != "" {
		certPEM, err := g.pem(ctx, "tls_cert_file", c.TLSCertFile, "tls_cert_secret", c.TLSCertSecret)
		if err != nil {
			return tls.Certificate{}, err
		}
		keyPEM, err := g.pem(ctx, "tls_key_file", c.TLSKeyFile, "tls_key_secret", c.TLSKeySecret)
		if err != nil {
			return tls.Certificate{}, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("the endpoint's certificate and key: %v", err)
		}
		return cert, nil
	}
	return g.generatedCert(c)
}

// pem reads one half of a webhook's certificate: from the secret named
// secretName, or from file, a path inside the tenant's directory opened
// through os.Root (no absolute path, no .., no symbolic link out of it).
func (g *Gateway) pem(ctx context.Context, fileField, file, secretField, secretName string) ([]byte, error) {
	switch {
	case file != "" && secretName != "":
		return nil, fmt.Errorf("give %s or %s, not both", fileField, secretField)
	case secretName != "":
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		v, err := g.secrets.Reveal(sctx, secretName)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", secretField, err)
		}
		return v, nil
	case file == "":
		return nil, fmt.Errorf("%s or %s is missing: a webhook's certificate needs both halves", fileField, secretField)
	case g.o.DataDir == "":
		return nil, fmt.Errorf("%s %q: this gateway has no tenant directory to read it from; keep it in a secret (%s)", fileField, file, secretField)
	case filepath.IsAbs(file) || !filepath.IsLocal(file):
		return nil, fmt.Errorf("%s %q is outside the tenant's directory: give a path relative to it, without ..", fileField, file)
	}
	root, err := os.OpenRoot(g.o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("%s: the tenant's directory: %v", fileField, unwrapPath(err))
	}
	defer root.Close()
	f, err := root.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", fileField, file, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPEMBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", fileField, file, unwrapPath(err))
	}
	if len(data) > maxPEMBytes {
		return nil, fmt.Errorf("%s %q is over %d bytes", fileField, file, maxPEMBytes)
	}
	return data, nil
}

// generatedCert returns a self-signed certificate for the endpoint's
// address, kept in the tenant's part of CertDir when there is one.
func (g *Gateway) generatedCert(c Config) (tls.Certificate, error) {
	var root *os.Root
	if g.o.CertDir != "" && filepath.IsLocal(c.Name) && g.p.Tenant != "" && filepath.IsLocal(g.p.Tenant) {
		dir := filepath.Join(g.o.CertDir, g.p.Tenant)
		if err := os.MkdirAll(dir, 0o700); err == nil {
			root, _ = os.OpenRoot(dir)
		}
	}
	if root != nil {
		defer root.Close()
		certPEM, cerr := root.ReadFile(c.Name + ".crt")
		keyPEM, kerr := root.ReadFile(c.Name + ".key")
		if cerr == nil && kerr == nil {
			if cert, err := tls.X509KeyPair(certPEM, keyPEM); err == nil {
				return cert, nil
			}
		}
	}
	certPEM, keyPEM, err := g.selfSigned(c)
	if err != nil {
		return tls.Certificate{}, err
	}
	if root != nil {
		_ = writeIn(root, c.Name+".key", keyPEM, 0o600)
		_ = writeIn(root, c.Name+".crt", certPEM, 0o644)
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// writeIn writes a file in root whole: under a temporary name, then
// renamed in place.
func writeIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	tmp := name + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, name)
	}
	if werr != nil {
		_ = root.Remove(tmp)
	}
	return werr
}

// selfSigned makes a certificate and its key for the endpoint's address.
func (g *Gateway) selfSigned(c Config) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "fabric event gateway " + c.Name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", g.host},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	if ip := net.ParseIP(c.Address); ip != nil && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if len(der) == 0 || len(keyDER) == 0 {
		return nil, nil, errors.New("generating the endpoint's certificate: empty")
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
