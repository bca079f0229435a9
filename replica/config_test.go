package replica

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigRefuses shows the replica settings refused before anything is opened, each
// with what to do.
func TestConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, []byte("[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBhSLUdbVjU8aGOaSG3FkSDM0VvM7c0HXwx2oS8JZ6mF\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}[k]
	}
	none := func(string) string { return "" }
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, "no URL"},
		{Config{URL: "ftp://host/path"}, "want a folder"},
		{Config{URL: "file://host/path"}, "file:///absolute/path"},
		{Config{URL: "sftp://host/path", SFTPKey: "k", KnownHosts: kh}, "sftp://user@host"},
		{Config{URL: "sftp://u:hunter2@127.0.0.1:2222/p", SFTPKey: "k", KnownHosts: kh}, "password"},
		{Config{URL: "sftp://u@127.0.0.1:2222/p", KnownHosts: kh}, "private key"},
		{Config{URL: "sftp://u@127.0.0.1:2222/p", SFTPKey: "k"}, "known_hosts"},
		{Config{URL: "sftp://u@127.0.0.1:2223/p", SFTPKey: "k", KnownHosts: kh}, "lists no key for [127.0.0.1]:2223"},
		{Config{URL: "sftp://u@127.0.0.1/p", SFTPKey: "k", KnownHosts: kh}, "lists no key for 127.0.0.1"},
		{Config{URL: "s3://bucket/p", Getenv: none}, "AWS_ACCESS_KEY_ID"},
		{Config{URL: "s3://id:secret@bucket/p", Getenv: creds}, "credentials in an s3:// URL"},
		{Config{URL: "s3:///p", Getenv: creds}, "s3://bucket/path"},
	} {
		_, err := Restore(context.Background(), tc.c, time.Time{}, filepath.Join(t.TempDir(), "data"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error saying %q", tc.c.URL, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", tc.c.URL, err)
		}
	}
	if got := Redact("sftp://u:hunter2@host/p"); got != "sftp://host/p" {
		t.Errorf("Redact: %q", got)
	}
}
