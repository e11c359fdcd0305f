package notify

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestWebhookStatusTextIsSafe: a webhook's reason phrase is the server's
// text, and it went raw into the warning, the notify event (events.jsonl,
// which a person tails) and the report: a bidi override or zero-width
// space in "418 I<U+202E>am teapot", and any length. The error holds it
// escaped and bounded.
func TestWebhookStatusTextIsSafe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		http.ReadRequest(bufio.NewReader(c))
		c.Write([]byte("HTTP/1.1 418 I\u202eam\u200b\u0085 teapot " + strings.Repeat("z", 5000) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	}()
	target, err := Parse("http://" + ln.Addr().String() + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	err = (Sender{}).Send(context.Background(), target, Message{Step: "record", Queue: "orders-dlq"})
	if err == nil {
		t.Fatal("a 418 was taken for success")
	}
	msg := err.Error()
	for _, r := range []string{"\u202e", "\u200b", "\u0085"} {
		if strings.Contains(msg, r) {
			t.Errorf("the error holds a raw %U: %q", []rune(r)[0], msg)
		}
	}
	if !strings.Contains(msg, "answered 418") || len(msg) > 400 {
		t.Errorf("error of %d bytes: %q", len(msg), msg)
	}
}
