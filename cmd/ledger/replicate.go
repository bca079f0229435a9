package main

import (
	"flag"

	"evidenceledger/replica"
)

// addReplicaFlags adds the flags that say how to reach a replica (serve --replicate,
// restore --from) and returns what they say once parsed; url is the replica's URL flag.
func addReplicaFlags(fs *flag.FlagSet, e *env, url *string) func() replica.Config {
	key := fs.String("replicate-sftp-key", "", "the SSH private key `file` (unencrypted) for an sftp:// replica")
	knownHosts := fs.String("replicate-known-hosts", "", "the known_hosts `file` an sftp:// replica's host key is checked against (required for sftp://)")
	endpoint := fs.String("replicate-s3-endpoint", "", "the `URL` of an S3-compatible service for an s3:// replica (empty: AWS); credentials only from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	region := fs.String("replicate-s3-region", "us-east-1", "the `region` of an s3:// replica")
	return func() replica.Config {
		return replica.Config{URL: *url, SFTPKey: *key, KnownHosts: *knownHosts, S3Endpoint: *endpoint, S3Region: *region, Getenv: e.getenv}
	}
}

// addReplicateFlags adds serve's --replicate and --replicate-interval beside the flags of
// addReplicaFlags.
func addReplicateFlags(fs *flag.FlagSet, e *env) func() replica.Config {
	url := fs.String("replicate", "", "stream the ledger continuously to a replica: a folder, sftp://user@host:port/path or s3://bucket/path (Litestream; docs/operations.md)")
	interval := fs.Duration("replicate-interval", replica.DefaultInterval, "how often the replica is brought up to date; an acknowledged write is in the replica about two `interval`s later")
	retention := fs.Duration("replicate-retention", replica.DefaultRetention, "how far back a restore at a time (restore --from URL --timestamp T) can go: the replica keeps a snapshot a day and what followed for this `duration`")
	cfg := addReplicaFlags(fs, e, url)
	return func() replica.Config {
		c := cfg()
		c.Interval, c.Retention = *interval, *retention
		return c
	}
}
