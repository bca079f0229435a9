package ledger

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// payloadTypes are the payload types the projectors decode, one fresh value per call.
var payloadTypes = []func() any{
	func() any { return &citationChecked{} },
	func() any { return &batchImported{} },
	func() any { return &keyPayload{} },
	func() any { return &seamOpened{} },
	func() any { return &seamResolved{} },
	func() any { return &sourceClassified{} },
	func() any { return &User{} },
}

// FuzzDecodePayload holds decodePayload to encoding/json, which decoded the payloads of every
// ledger recorded before it: for any input and every projector's payload type, both fail or
// both give the same value, so a replay reads an old ledger's payloads as Record read them.
// Seeded with the payloads of testdata/ledger/export.jsonl and a real check's payload.
func FuzzDecodePayload(f *testing.F) {
	file, err := os.Open("../testdata/ledger/export.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(line.Payload))
	}
	if err := sc.Err(); err != nil {
		f.Fatal(err)
	}
	ch, _ := foundCheck("c_0123456789abcdef", "ct_0123456789abcdef", "https://host1.example/filings/1")
	check, err := json.Marshal(citationChecked{Checked: ch, Blobs: []string{ch.Document.SHA256}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(check)
	f.Add([]byte(`{"Citation":"ct_0123456789abcdef","status":"found_at_source","verdicts":null}`))
	f.Add([]byte(`{"text":"caf\xc3\xa9 \ud800","n":1e3,"x":{"y":[1,2,{}]}}`))
	f.Add([]byte(`{"key_id":"a","key_id":"b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, make := range payloadTypes {
			std, ours := make(), make()
			errStd := json.Unmarshal(data, std)
			errOurs := decodePayload(&Event{Payload: data}, ours)
			if (errStd == nil) != (errOurs == nil) {
				t.Fatalf("%T from %q: encoding/json says %v, decodePayload %v", std, data, errStd, errOurs)
			}
			if errStd == nil && !reflect.DeepEqual(std, ours) {
				t.Fatalf("%T from %q: encoding/json gives %+v, decodePayload %+v", std, data, std, ours)
			}
		}
	})
}
