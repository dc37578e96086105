package deploydir

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// EncPrefix marks an encrypted value of policy.json: "enc:v1:" then the
// base64 (standard, padded) of a 12-byte nonce and the AES-256-GCM
// sealed text.
const EncPrefix = "enc:v1:"

// KeySize is the size of a policy key: AES-256.
const KeySize = 32

// Encrypter seals credentials with a key.
type Encrypter struct{ aead cipher.AEAD }

// NewEncrypter returns an Encrypter of a 32-byte key.
func NewEncrypter(key []byte) (*Encrypter, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("a policy key is %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Encrypter{aead}, nil
}

// Encrypt returns the marked, sealed form of plain.
func (e *Encrypter) Encrypt(plain string) (string, error) {
	nonce := make([]byte, e.aead.NonceSize())
	if _, err := io.ReadFull(rand.Reader, nonce); err != nil {
		return "", err
	}
	sealed := e.aead.Seal(nonce, nonce, []byte(plain), nil)
	return EncPrefix + base64.StdEncoding.EncodeToString(sealed), nil
}

// Decrypt opens a value Encrypt made.
func (e *Encrypter) Decrypt(value string) (string, error) {
	rest, ok := strings.CutPrefix(value, EncPrefix)
	if !ok {
		return "", errors.New("not an encrypted value")
	}
	data, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(data) < e.aead.NonceSize() {
		return "", errors.New("a damaged encrypted value")
	}
	n := e.aead.NonceSize()
	plain, err := e.aead.Open(nil, data[:n], data[n:], nil)
	if err != nil {
		return "", errors.New("the value was not encrypted with this key")
	}
	return string(plain), nil
}

// ReadKey reads the key file at path; a missing one is made (0600, in
// a 0700 directory made when missing) with a random key when create is
// set. A key file readable by others is refused.
func ReadKey(path string, create bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		key := make([]byte, KeySize)
		if _, err := io.ReadFull(rand.Reader, key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintln(f, base64.StdEncoding.EncodeToString(key))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return nil, err
		}
		return key, nil
	}
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("key file %s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("key file %s does not hold a base64 %d-byte key", path, KeySize)
	}
	return key, nil
}

// IsCredential reports whether a key of policy.json names a credential
// the upgrade encrypts: its lower-case form contains password, passwd,
// secret or token.
func IsCredential(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"password", "passwd", "secret", "token"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// EncryptCredentials replaces each string value of policy.json whose key
// IsCredential, and that is not encrypted yet, with encrypt's result.
// Every other byte, layout and key order included, stays as it is.
func EncryptCredentials(data []byte, encrypt func(string) (string, error)) ([]byte, bool, error) {
	type span struct {
		start, end int
		value      string
	}
	var spans []span
	dec := json.NewDecoder(bytes.NewReader(data))
	// stack: for each open container, whether it is an object and
	// whether the next string in it is a key.
	type frame struct{ object, wantKey bool }
	var stack []frame
	lastKey := ""
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: %v", Policy, err)
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if top >= 0 && stack[top].object {
					stack[top].wantKey = true
				}
				stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
			} else {
				stack = stack[:top]
			}
			continue
		case string:
			if top >= 0 && stack[top].object && stack[top].wantKey {
				lastKey = t
				stack[top].wantKey = false
				continue
			}
			if top >= 0 && stack[top].object && IsCredential(lastKey) && !strings.HasPrefix(t, EncPrefix) {
				start := before + bytes.IndexByte(data[before:], '"')
				spans = append(spans, span{start, int(dec.InputOffset()), t})
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
	if len(stack) != 0 {
		return nil, false, fmt.Errorf("%s: unexpected end of JSON input", Policy)
	}
	if len(spans) == 0 {
		return data, false, nil
	}
	var out bytes.Buffer
	at := 0
	for _, s := range spans {
		enc, err := encrypt(s.value)
		if err != nil {
			return nil, false, err
		}
		var q bytes.Buffer
		je := json.NewEncoder(&q)
		je.SetEscapeHTML(false)
		_ = je.Encode(enc)
		out.Write(data[at:s.start])
		out.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
		at = s.end
	}
	out.Write(data[at:])
	return out.Bytes(), true, nil
}

// CheckPolicy parses policy.json: a JSON object.
func CheckPolicy(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %v", Policy, err)
	}
	return nil
}
