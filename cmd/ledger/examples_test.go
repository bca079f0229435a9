package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestExampleUnitAndProxy reads docs/examples: the systemd unit's keys parse (one section
// header or KEY=VALUE a line), every flag its ExecStart passes to `ledger serve` and every
// LEDGER_ variable it sets is one `ledger serve --help` lists, it sandboxes the service, and
// both proxy examples send requests to the address the unit serves on.
func TestExampleUnitAndProxy(t *testing.T) {
	var help syncBuffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &help, getenv: func(string) string { return "" }}
	run(context.Background(), []string{"serve", "--help"}, e)
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1) {
		known[m[1]] = true
	}
	if !known["shutdown-grace"] || !known["addr"] {
		t.Fatalf("ledger serve --help lists %v; the test reads it wrong:\n%s", known, help.String())
	}

	f, err := os.Open("../../docs/examples/ledger.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" || !regexp.MustCompile(`^[A-Za-z]+$`).MatchString(k) {
				t.Fatalf("ledger.service line %d: %q is neither a [section] nor KEY=VALUE in one", n, line)
			}
			keys[section+k] = append(keys[section+k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	exec := keys["[Service]ExecStart"]
	if len(exec) != 1 {
		t.Fatalf("ExecStart %q; want one", exec)
	}
	args := strings.Fields(exec[0])
	if len(args) < 2 || !strings.HasSuffix(args[0], "/ledger") || args[1] != "serve" {
		t.Fatalf("ExecStart %q does not run ledger serve", exec[0])
	}
	addr := ""
	for i, a := range args[2:] {
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if !known[name] {
			t.Errorf("ExecStart passes --%s, which ledger serve does not have", name)
		}
		if name == "addr" {
			addr = args[2+i+1]
		}
	}
	for _, v := range keys["[Service]Environment"] {
		name, _, _ := strings.Cut(v, "=")
		flag, ok := strings.CutPrefix(name, "LEDGER_")
		if !ok || !known[strings.ToLower(strings.ReplaceAll(flag, "_", "-"))] {
			t.Errorf("Environment sets %s, which is no flag's variable", name)
		}
	}
	for _, k := range []string{"NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices", "RestrictAddressFamilies", "CapabilityBoundingSet", "ReadWritePaths", "TimeoutStopSec"} {
		if len(keys["[Service]"+k]) == 0 {
			t.Errorf("ledger.service does not set %s", k)
		}
	}
	if addr == "" {
		t.Fatal("ExecStart gives no --addr")
	}
	for _, name := range []string{"Caddyfile", "nginx.conf"} {
		b, err := os.ReadFile("../../docs/examples/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), addr) {
			t.Errorf("%s does not proxy to %s, where the unit serves", name, addr)
		}
		if !strings.Contains(string(b), "Host") || !strings.Contains(string(b), "Strict-Transport-Security") {
			t.Errorf("%s does not keep the Host header or add HSTS", name)
		}
	}
}
