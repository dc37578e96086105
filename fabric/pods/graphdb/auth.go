package graphdb

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// TokenLifetime is how long a JWT from /_open/auth is valid.
const TokenLifetime = time.Hour

// auth checks the credentials of requests: HTTP basic, or a bearer JWT
// (HS256, signed with the server's secret) that /_open/auth hands out for
// the same user and password, as ArangoDB does.
type auth struct {
	user, password string
	secret         []byte
	now            func() time.Time
}

var b64 = base64.RawURLEncoding

// token returns a signed JWT for user, valid for TokenLifetime.
func (a *auth) token(user string) string {
	now := a.now()
	header := b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"preferred_username": user, "iss": "arangodb",
		"iat": now.Unix(), "exp": now.Add(TokenLifetime).Unix()})
	unsigned := header + "." + b64.EncodeToString(claims)
	return unsigned + "." + b64.EncodeToString(a.sign(unsigned))
}

func (a *auth) sign(s string) []byte {
	m := hmac.New(sha256.New, a.secret)
	m.Write([]byte(s))
	return m.Sum(nil)
}

// checkPassword reports whether user and password are the server's.
func (a *auth) checkPassword(user, password string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(a.user))
	p := subtle.ConstantTimeCompare([]byte(password), []byte(a.password))
	return u&p == 1
}

// verify checks a bearer JWT: its signature and its expiry.
func (a *auth) verify(tok string) error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return errors.New("not a JWT")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, a.sign(parts[0]+"."+parts[1])) {
		return errors.New("bad signature")
	}
	payload, err := b64.DecodeString(parts[1])
	if err != nil {
		return err
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return err
	}
	if a.now().Unix() >= claims.Exp {
		return errors.New("expired")
	}
	return nil
}

// allowed reports whether a request carries valid credentials.
func (a *auth) allowed(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, value, _ := strings.Cut(h, " ")
	switch strings.ToLower(scheme) {
	case "basic":
		user, password, ok := r.BasicAuth()
		return ok && a.checkPassword(user, password)
	case "bearer":
		return a.verify(strings.TrimSpace(value)) == nil
	}
	return false
}
