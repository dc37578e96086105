package eventgw

import (
	"bufio"
	"encoding/binary"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// DefaultReceiveBuffer is the UDP receive buffer a gateway asks the
// kernel for unless an endpoint's receive_buffer_bytes says otherwise:
// room for a burst while the gateway reads. The kernel gives at most
// net.core.rmem_max unless the process may force more (CAP_NET_ADMIN).
const DefaultReceiveBuffer = 8 << 20

// udpCounters are what the kernel says of a UDP endpoint's socket: the
// datagrams it dropped because the receive buffer was full, and the size
// of that buffer.
type udpCounters struct {
	buffer int64  // the receive buffer the kernel gave, in bytes
	inode  uint64 // the socket's inode, its key in /proc/net/udp
	ovfl   atomic.Int64
}

// watchUDP sizes the receive buffer of c (asking for want bytes) and has
// the kernel tell, with each datagram, how many it dropped so far
// (SO_RXQ_OVFL).
func watchUDP(c *net.UDPConn, want int) *udpCounters {
	u := &udpCounters{}
	raw, err := c.SyscallConn()
	if err != nil {
		return u
	}
	_ = raw.Control(func(fd uintptr) {
		s := int(fd)
		if want > 0 {
			// Forcing passes rmem_max when the process may; else the
			// kernel gives what it allows.
			if unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, want) != nil {
				_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUF, want)
			}
		}
		if n, err := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUF); err == nil {
			u.buffer = int64(n)
		}
		_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RXQ_OVFL, 1)
		var st unix.Stat_t
		if unix.Fstat(s, &st) == nil {
			u.inode = st.Ino
		}
	})
	return u
}

// oobSize is room for the control message of SO_RXQ_OVFL.
var oobSize = unix.CmsgSpace(4)

// seen takes the drop count of a datagram's control messages.
func (u *udpCounters) seen(oob []byte) {
	// One datagram after another on the hot path: the messages are read
	// in place, not copied into a slice.
	for len(oob) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_RXQ_OVFL && len(data) >= 4 {
			u.ovfl.Store(int64(binary.NativeEndian.Uint32(data)))
		}
		oob = rest
	}
}

// drops is how many datagrams the kernel dropped at the socket: its
// entry in /proc/net/udp (up to now), else the count the last datagram
// brought (up to it).
func (u *udpCounters) drops() int64 {
	n := u.ovfl.Load()
	if u.inode != 0 {
		if p, ok := procUDPDrops(u.inode); ok && p > n {
			n = p
		}
	}
	return n
}

// procUDPDrops reads the drops column of the socket of that inode in
// /proc/net/udp or /proc/net/udp6.
func procUDPDrops(inode uint64) (int64, bool) {
	want := strconv.FormatUint(inode, 10)
	for _, table := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
			if len(fields) >= 13 && fields[9] == want {
				f.Close()
				n, err := strconv.ParseInt(fields[12], 10, 64)
				return n, err == nil
			}
		}
		f.Close()
	}
	return 0, false
}
