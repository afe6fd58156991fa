// Package memnet serves HTTP over connections in memory (net.Pipe), for
// tests that run a server and its client in a testing/synctest bubble:
// there a goroutine waiting on a real socket does not count as blocked,
// so the bubble's clock would not move while the client waits for an
// answer, whereas one waiting on a pipe does. Server and client are
// net/http's own; only the connections between them are not sockets.
package memnet

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Listener is a net.Listener whose connections are made by its Dial.
type Listener struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

// Listen returns a new Listener.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for a connection that Dial makes.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops the Listener: Accept and Dial fail from then on.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

// Addr is the Listener's address, which names no network.
func (l *Listener) Addr() net.Addr { return addr{} }

// Dial connects to the Listener, whatever network and address it is given,
// as an http.Transport's DialContext.
func (l *Listener) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type addr struct{}

func (addr) Network() string { return "memnet" }
func (addr) String() string  { return "memnet" }

// URL is the base URL of a server Serve starts: any host reaches it.
const URL = "http://memnet.test"

// Serve serves h in memory until t ends, and returns a client of it; the
// server's address is URL.
func Serve(t testing.TB, h http.Handler) *http.Client {
	l := Listen()
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(l)
	}()
	tr := &http.Transport{DialContext: l.Dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
		<-served
	})
	return &http.Client{Transport: tr}
}
