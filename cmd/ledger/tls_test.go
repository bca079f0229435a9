package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to dir and returns
// their paths and a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ledger test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeTLS: with --tls-cert and --tls-key the server speaks https only, says so at
// start, and sends Strict-Transport-Security; the TLS flags are checked before anything is
// opened.
func TestServeTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile}, e)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve ended with %d: %s", code, stderr.String())
		}
	})
	base := stderr.waitFor(t, regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)`), done)[1]
	// The first-run link is written on the line after "serving on": wait for it, then read it.
	if link := stderr.waitFor(t, regexp.MustCompile(`\s(\S+)/setup\?token=`), done)[1]; link != base {
		t.Errorf("the first-run link is not %s but %s: %s", base, link, stderr.String())
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") == "" || resp.TLS == nil {
		t.Fatalf("GET /healthz over TLS: %d %v", resp.StatusCode, resp.Header)
	}
	plain, err := http.Get(strings.Replace(base, "https://", "http://", 1) + "/healthz")
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode == 200 {
			t.Fatal("the TLS server answered plain http with 200")
		}
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tls-cert", certFile}, 2, "go together"},
		{[]string{"--tls-key", keyFile}, 2, "go together"},
		{[]string{"--tls-acme", "ledger.example.org", "--tls-cert", certFile, "--tls-key", keyFile}, 2, "not both"},
		{[]string{"--tls-cert", keyFile, "--tls-key", certFile}, 1, "--tls-cert"},
		{[]string{"--tls-cert", filepath.Join(t.TempDir(), "missing.pem"), "--tls-key", keyFile}, 1, "no such file"},
	} {
		data := t.TempDir()
		r := ledgerCmd(t, data, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("serve %v: %+v; want exit %d saying %q", tt.args, r, tt.code, tt.want)
		}
		if _, err := os.Stat(filepath.Join(data, "ledger.db")); err == nil {
			t.Errorf("serve %v made a ledger before refusing", tt.args)
		}
	}
}
