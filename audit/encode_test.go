package audit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestAppendRecordIsJSON holds appendRecord to encoding/json, which the
// readers of the log decode with: the same bytes for a record with every
// field set (filled by reflection, so that a field added to Record and
// not to appendRecord fails here), with each left zero in turn, and for
// the zero record.
func TestAppendRecordIsJSON(t *testing.T) {
	t.Parallel()
	var full Record
	fill(reflect.ValueOf(&full).Elem(), "a\"b\\c</script>&\x01\t\n\u2028\u2029é\xff")
	records := []Record{{}, full}
	for i := range reflect.TypeFor[Record]().NumField() {
		r := full
		reflect.ValueOf(&r).Elem().Field(i).SetZero()
		records = append(records, r)
	}
	for _, c := range []Checkpoint{{}, {Tag: "t"}, {Time: full.Time}} {
		r := full
		r.Checkpoints = []Checkpoint{c, full.Checkpoints[0]}
		records = append(records, r)
	}
	for _, r := range records {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		got, err := appendRecord(nil, &r)
		if err != nil || string(got)+"\n" != want.String() {
			t.Errorf("appendRecord(%+v) = %s, %v\nencoding/json  %s", r, got, err, want.Bytes())
		}
	}
	r := full
	r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := appendRecord(nil, &r); err == nil {
		t.Error("a time past year 9999 encodes, want the error encoding/json gives")
	}
}

// fill sets every field v holds, as deep as it goes, to a value that is
// not zero: strings to s.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(-42)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), s)
		fill(v.Index(1), strings.ToUpper(s))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("", 5400))))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), s)
		}
	default:
		panic("fill: a field of kind " + v.Kind().String())
	}
}
