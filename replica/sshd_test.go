package replica

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// sshdPath is Debian's OpenSSH server (package openssh-server).
const sshdPath = "/usr/sbin/sshd"

// sshd is an OpenSSH server the test started on loopback, as the current user.
type sshd struct {
	addr       string // 127.0.0.1:port
	user       string
	root       string // a folder the user may write
	key        string // the client's private key file
	knownHosts string // a known_hosts file with the server's host key
	hostKey    ssh.PublicKey
}

// writeKey makes an ed25519 key, writes its private half to path (OpenSSH format, mode
// 0600) and returns the public half.
func writeKey(t *testing.T, path string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// startSSHD starts /usr/sbin/sshd on a loopback port with a host key, an authorized_keys
// file and a client key made for the test, SFTP served by internal-sftp, and stops it at
// the end of the test. A missing sshd fails the test.
func startSSHD(t *testing.T) sshd {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Fatalf("the SFTP tests need OpenSSH's server at %s (apt-get install openssh-server): %v", sshdPath, err)
	}
	// Run as root, sshd wants its privilege separation folder, which Debian's service unit
	// makes at boot (tmpfiles); as another user it needs none.
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("make sshd's privilege separation folder: %v", err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	d := sshd{user: u.Username, root: filepath.Join(dir, "files"), key: filepath.Join(dir, "client_key"), knownHosts: filepath.Join(dir, "known_hosts")}
	if err := os.Mkdir(d.root, 0o700); err != nil {
		t.Fatal(err)
	}
	d.hostKey = writeKey(t, filepath.Join(dir, "host_key"))
	client := writeKey(t, d.key)
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(client), 0o600); err != nil {
		t.Fatal(err)
	}
	// A free loopback port: taken, then given to sshd.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.addr = ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(d.addr)
	conf := strings.Join([]string{
		"ListenAddress " + d.addr,
		"HostKey " + filepath.Join(dir, "host_key"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PidFile none",
		"UsePAM no",
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"PermitRootLogin prohibit-password",
		"Subsystem sftp internal-sftp",
		"LogLevel VERBOSE",
	}, "\n") + "\n"
	cfg := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("[127.0.0.1]:%s %s", port, ssh.MarshalAuthorizedKey(d.hostKey))
	if err := os.WriteFile(d.knownHosts, []byte("# the test's server\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", sshdPath, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if strings.Contains(sc.Text(), "Server listening on 127.0.0.1 port "+port) {
			go func() {
				for sc.Scan() {
				}
			}()
			return d
		}
	}
	t.Fatalf("sshd ended before it listened:\n%s", strings.Join(said, "\n"))
	return d
}
