package eventgw

import (
	"context"
	"testing"
	"time"
)

// TestByteLimit: a taker over the limit waits for a give (TCP) or is
// refused at once (UDP); a cancelled wait gives up; a record larger than
// the limit alone goes in when nothing is held.
func TestByteLimit(t *testing.T) {
	l := newByteLimit(100)
	if !l.take(context.Background(), 80, true) || l.take(context.Background(), 30, false) {
		t.Fatal("the limit does not hold")
	}
	got := make(chan bool)
	go func() { got <- l.take(context.Background(), 30, true) }()
	select {
	case <-got:
		t.Fatal("a taker over the limit did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	l.give(80)
	if !<-got || l.inUse() != 30 {
		t.Fatalf("the waiting taker: in use %d", l.inUse())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if l.take(ctx, 90, true) {
		t.Fatal("a cancelled wait took")
	}
	l.give(30)
	if !l.take(context.Background(), 500, false) || l.inUse() != 500 {
		t.Fatal("a record larger than the limit cannot go in alone")
	}
}
