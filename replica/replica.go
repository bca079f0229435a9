// Package replica streams a ledger's database to a replica with Litestream, embedded as a
// library, and brings a ledger back from one (docs/operations.md, "Continuous replication").
//
// It is a package of its own, beside ledger, so that Litestream and the storage clients it
// brings (SSH, SFTP, the S3 SDK) are linked only where replication is used, and so that it
// reaches the ledger only through its public contract: the database file DIR/ledger.db, and
// [ledger.Restore] to put a restored copy in place.
package replica

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/benbjohnson/litestream/s3"
	"github.com/benbjohnson/litestream/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"evidenceledger/ledger"
)

// DefaultInterval is how often the replica is brought up to date: a commit is in the
// replica at most about two intervals after it was acknowledged (one for Litestream to see
// the WAL grow, one for the upload), unless the replica cannot be reached.
const DefaultInterval = time.Second

// dbFileName is the ledger's database inside its data directory (ledger.Open).
const dbFileName = "ledger.db"

// Config says where a replica is and how to reach it.
type Config struct {
	// URL is the replica: a folder (a path, or file:///path), sftp://user@host[:port]/path,
	// or s3://bucket/path.
	URL string
	// SFTPKey is the private key file (OpenSSH or PEM, unencrypted) for sftp://.
	SFTPKey string
	// KnownHosts is the known_hosts file the SFTP server's host key is checked against;
	// sftp:// is refused without one, and when it lists no key for the host.
	KnownHosts string
	// S3Endpoint is the URL of an S3-compatible service ("" for AWS); S3Region its region.
	S3Endpoint, S3Region string
	// Getenv reads the S3 credentials, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: they are
	// taken from the environment only, never from a flag, and never logged.
	Getenv func(string) string
	// Interval is how often the replica is brought up to date (DefaultInterval when 0).
	Interval time.Duration
	// Retention is how far back a restore at a time can go (DefaultRetention when 0): the
	// replica keeps a snapshot a day and what followed, and deletes what is older.
	Retention time.Duration
}

// DefaultRetention is how long a replica keeps the history a restore at a time reads.
const DefaultRetention = 7 * 24 * time.Hour

// client makes the Litestream client of c.URL.
func (c Config) client() (litestream.ReplicaClient, error) {
	if c.URL == "" {
		return nil, fmt.Errorf("replica: no URL given")
	}
	if !strings.Contains(c.URL, "://") {
		return file.NewReplicaClient(c.URL), nil
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("replica URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" || u.Path == "" {
			return nil, fmt.Errorf("replica URL %q: want file:///absolute/path", c.URL)
		}
		return file.NewReplicaClient(u.Path), nil
	case "sftp":
		return c.sftpClient(u)
	case "s3":
		return c.s3Client(u)
	}
	return nil, fmt.Errorf("replica URL %q: want a folder, file://, sftp:// or s3://", c.URL)
}

func (c Config) sftpClient(u *url.URL) (litestream.ReplicaClient, error) {
	user := u.User.Username()
	if _, hasPassword := u.User.Password(); hasPassword {
		return nil, fmt.Errorf("replica URL: a password in an sftp:// URL is refused; give a key file")
	}
	if user == "" || u.Host == "" || u.Path == "" {
		return nil, fmt.Errorf("replica URL: want sftp://user@host[:port]/path")
	}
	if c.SFTPKey == "" {
		return nil, fmt.Errorf("replica %s: give the SSH private key file", redact(u))
	}
	if c.KnownHosts == "" {
		return nil, fmt.Errorf("replica %s: give a known_hosts file that lists the server's host key", redact(u))
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "22")
	}
	hostKey, err := knownHostKey(c.KnownHosts, host)
	if err != nil {
		return nil, err
	}
	cl := sftp.NewReplicaClient()
	cl.Host, cl.User, cl.Path, cl.KeyPath, cl.HostKey = host, user, u.Path, c.SFTPKey, hostKey
	cl.DialTimeout = 30 * time.Second
	return cl, nil
}

// knownHostKey is the host key that the known_hosts file path lists for host (host:port),
// in authorized_keys form: the first key whose line matches the host, hashed entries
// included, as ssh(1) finds it. The SFTP connection then accepts that key only.
func knownHostKey(path, host string) (string, error) {
	check, err := knownhosts.New(path)
	if err != nil {
		return "", fmt.Errorf("known hosts %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("known hosts: %w", err)
	}
	defer f.Close()
	addr := &net.TCPAddr{IP: net.IPv4zero}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		_, _, key, _, _, err := ssh.ParseKnownHosts(sc.Bytes())
		if err != nil {
			continue // comments, blank lines, markers
		}
		if check(host, addr, key) == nil {
			return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("known hosts %s: %w", path, err)
	}
	return "", fmt.Errorf("known hosts %s lists no key for %s; add the server's host key (ssh-keyscan -p PORT HOST >> %s, then check it)", path, knownhosts.Normalize(host), path)
}

func (c Config) s3Client(u *url.URL) (litestream.ReplicaClient, error) {
	if u.User != nil {
		return nil, fmt.Errorf("replica URL: credentials in an s3:// URL are refused; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	if u.Host == "" {
		return nil, fmt.Errorf("replica URL: want s3://bucket/path")
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return nil, fmt.Errorf("replica %s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment", redact(u))
	}
	cl := s3.NewReplicaClient()
	cl.Bucket, cl.Path = u.Host, strings.TrimPrefix(u.Path, "/")
	cl.AccessKeyID, cl.SecretAccessKey = id, secret
	cl.Region = c.S3Region
	if cl.Region == "" {
		cl.Region = "us-east-1"
	}
	if c.S3Endpoint != "" {
		cl.Endpoint, cl.ForcePathStyle = c.S3Endpoint, true
	}
	return cl, nil
}

// redact is u without its user information, for messages.
func redact(u *url.URL) string {
	v := *u
	v.User = nil
	return v.String()
}

// Replicator streams one ledger database to its replica until it is closed.
type Replicator struct {
	store *litestream.Store
}

// Start streams the ledger database of the data directory dir to the replica of c, in the
// background, until [Replicator.Close]. The ledger must exist (ledger.Open made it). A
// replica that cannot be reached is retried, logged on log (slog's default logger when
// nil); the ledger keeps working.
//
// Litestream takes over checkpointing of the WAL while it runs: it holds a read transaction
// so that no checkpoint passes what it has copied, and checkpoints itself once it has.
// It adds two tables of its own to the database, _litestream_seq and _litestream_lock.
func Start(ctx context.Context, dir string, c Config, log *slog.Logger) (*Replicator, error) {
	path := filepath.Join(dir, dbFileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("replicate: %w", err)
	}
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	interval := c.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	db := litestream.NewDB(path)
	db.MonitorInterval = interval
	r := litestream.NewReplicaWithClient(db, cl)
	r.SyncInterval = interval
	db.Replica = r
	st := litestream.NewStore([]*litestream.DB{db}, litestream.CompactionLevels{
		{Level: 0},
		{Level: 1, Interval: 30 * time.Second},
		{Level: 2, Interval: 5 * time.Minute},
		{Level: 3, Interval: time.Hour},
	})
	if log != nil {
		st.Logger = log.With("replica", Redact(c.URL))
		db.SetLogger(st.Logger)
	}
	st.SnapshotInterval = 24 * time.Hour
	st.SnapshotRetention = c.Retention
	if st.SnapshotRetention <= 0 {
		st.SnapshotRetention = DefaultRetention
	}
	if err := st.Open(ctx); err != nil {
		return nil, fmt.Errorf("replicate to %s: %w", Redact(c.URL), err)
	}
	return &Replicator{store: st}, nil
}

// Close copies what the replica lacks, then stops.
func (r *Replicator) Close(ctx context.Context) error {
	var err error
	for _, db := range r.store.DBs() {
		if serr := db.SyncAndWait(ctx); serr != nil {
			err = serr
		}
	}
	return errors.Join(err, r.store.Close(ctx))
}

// Redact is a replica URL as it may be logged: without user information.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || !strings.Contains(s, "://") {
		return s
	}
	return redact(u)
}

// Restore brings the ledger back from the replica of c into the data directory dir, as it
// was at the time at (the newest state when at is zero), with [ledger.Restore]: it refuses
// a directory that already holds a ledger, and leaves nothing behind when it fails. The
// signing key is not in a replica: put it back apart. Audit the result to see its head.
func Restore(ctx context.Context, c Config, at time.Time, dir string) (ledger.RestoreResult, error) {
	cl, err := c.client()
	if err != nil {
		return ledger.RestoreResult{}, err
	}
	tmp, err := os.MkdirTemp("", "ledger-restore-")
	if err != nil {
		return ledger.RestoreResult{}, fmt.Errorf("restore: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, dbFileName)
	r := litestream.NewReplicaWithClient(nil, cl)
	if err := r.Restore(ctx, litestream.RestoreOptions{OutputPath: out, Timestamp: at, IntegrityCheck: litestream.IntegrityCheckQuick}); err != nil {
		return ledger.RestoreResult{}, fmt.Errorf("restore from %s: %w", Redact(c.URL), err)
	}
	return ledger.Restore(ctx, out, dir)
}
