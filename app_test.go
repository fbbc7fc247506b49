package main

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"crewagent/backend/desktop"
)

// The window binds every struct of the desktop app (each exported field of
// desktop.App), once.
func TestWindowBindsEveryStruct(t *testing.T) {
	w := desktop.NewWindow(t.TempDir())
	defer w.Shutdown(context.Background())
	v := reflect.ValueOf(w.App).Elem()
	var want []string
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() {
			want = append(want, f.Type.String())
		}
	}
	var got []string
	for _, b := range bound(w) {
		if reflect.ValueOf(b).IsNil() {
			t.Errorf("%T is bound before it is made", b)
		}
		got = append(got, reflect.TypeOf(b).String())
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) < 10 || !slices.Equal(got, want) {
		t.Fatalf("bound %v, the desktop app has %v", got, want)
	}
}
