package bus

import (
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// nkeyOption authenticates with a user nkey seed.
func nkeyOption(seed string) (nats.Option, error) {
	kp, err := nkeys.FromSeed([]byte(seed))
	if err != nil {
		return nil, fmt.Errorf("nkey_seed is not a valid seed")
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("nkey_seed is not a valid seed")
	}
	return nats.Nkey(pub, func(nonce []byte) ([]byte, error) { return kp.Sign(nonce) }), nil
}
