package budget

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		charge func(b *Budget) error
		want   string
	}{
		{"memory", Limits{Memory: 1 << 20}, func(b *Budget) error { return b.Grow(2 << 20) }, "query over its memory limit of 1 MB (reached 2 MB)"},
		{"rows", Limits{Rows: 10}, func(b *Budget) error {
			for {
				if err := b.AddRows(3); err != nil {
					return err
				}
			}
		}, "query over its rows limit of 10 rows (reached 12 rows)"},
		{"steps", Limits{Steps: 1000}, func(b *Budget) error {
			for {
				if err := b.Step(); err != nil {
					return err
				}
			}
		}, "query over its steps limit of 1000 steps (reached 1001 steps)"},
		{"result", Limits{Result: 1000}, func(b *Budget) error { return b.AddResult(1500) }, "query over its result size limit of 1000 B (reached 1.5 KB)"},
		{"wall", Limits{Wall: 20 * time.Millisecond}, func(b *Budget) error {
			for {
				if err := b.Step(); err != nil {
					return err
				}
			}
		}, "query over its run time limit of 20ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(context.Background(), "query", tt.limits)
			defer b.Close()
			err := tt.charge(b)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrExceeded) {
				t.Fatalf("%v is not ErrExceeded", err)
			}
			if b.Context().Err() == nil {
				t.Fatal("the context is not cancelled")
			}
			if c := context.Cause(b.Context()); c.Error() != tt.want {
				t.Fatalf("cause %v", c)
			}
			if err := b.Grow(0); err == nil {
				t.Fatal("a later charge passes")
			}
		})
	}
}

func TestNilAndShrink(t *testing.T) {
	var b *Budget
	if b.Grow(1<<40) != nil || b.Step() != nil || b.AddRows(1) != nil || b.Err() != nil {
		t.Fatal("a nil budget refuses")
	}
	b.Close()
	c := New(context.Background(), "job", Limits{Memory: 100})
	for range 1000 {
		if err := c.Grow(60); err != nil {
			t.Fatal(err)
		}
		c.Shrink(60)
	}
	if c.Held() != 0 || c.Peak() != 60 {
		t.Fatalf("held %d peak %d", c.Held(), c.Peak())
	}
}

func TestParentCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	b := New(ctx, "query", Limits{})
	cancel(errors.New("client went away"))
	var err error
	for err == nil {
		err = b.Step()
	}
	if err.Error() != "client went away" {
		t.Fatal(err)
	}
}

func TestGuard(t *testing.T) {
	err := Guard(func() error { var m map[string]int; m["x"] = 1; return nil })
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "internal error: ") || len(pe.Stack) == 0 {
		t.Fatalf("%v", err)
	}
}

func TestGate(t *testing.T) {
	g := NewGate("queries", 2, 1)
	r1, _ := g.Enter(context.Background())
	r2, _ := g.Enter(context.Background())
	done := make(chan error)
	go func() {
		r, err := g.Enter(context.Background())
		if r != nil {
			r()
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if _, err := g.Enter(context.Background()); !errors.Is(err, ErrBusy) || err.Error() != "too many at once: 2 queries running and 1 waiting, the most allowed" {
		t.Fatalf("%v", err)
	}
	r1()
	r1()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r2()
	if g.InUse() != 0 {
		t.Fatal(g.InUse())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	a, _ := g.Enter(context.Background())
	b, _ := g.Enter(context.Background())
	if _, err := g.Enter(ctx); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("%v", err)
	}
	a()
	b()
}

func BenchmarkStep(b *testing.B) {
	bg := New(context.Background(), "job", Limits{Steps: 1 << 62})
	for b.Loop() {
		_ = bg.Step()
	}
}

func TestPool(t *testing.T) {
	p := NewPool("the worker's jobs", 100<<20)
	if err := p.Take(60 << 20); err != nil {
		t.Fatal(err)
	}
	err := p.Take(60 << 20)
	if err == nil || err.Error() != "the worker's jobs hold 60 MB, and 60 MB more would pass their limit of 100 MB" {
		t.Fatalf("%v", err)
	}
	if p.Fits(40<<20) != nil || p.Fits(41<<20) == nil {
		t.Fatal("Fits")
	}
	p.Give(60 << 20)
	if p.Held() != 0 || p.Take(100<<20) != nil {
		t.Fatal("the pool does not give back")
	}
	var none *Pool
	if none.Take(1<<40) != nil || none.Fits(1<<40) != nil {
		t.Fatal("a nil pool refuses")
	}
}
