package cli

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args     []string
		operands []string
		json     bool
		o        string
	}{
		{[]string{"m", "--json"}, []string{"m"}, true, ""},
		{[]string{"--json", "m", "n"}, []string{"m", "n"}, true, ""},
		{[]string{"m", "-o", "x", "n"}, []string{"m", "n"}, false, "x"},
		{[]string{"--", "-m", "--json"}, []string{"-m", "--json"}, false, ""},
		{[]string{"m", "--", "--json"}, []string{"m", "--json"}, false, ""},
		{[]string{"m", "-o", "--", "--json"}, []string{"m"}, true, "--"},
		{[]string{"m", "--json", "--", "n"}, []string{"m", "n"}, true, ""},
		{nil, nil, false, ""},
	} {
		fl := flag.NewFlagSet("t", flag.ContinueOnError)
		j := fl.Bool("json", false, "")
		o := fl.String("o", "", "")
		got, err := Parse(fl, c.args)
		require.NoError(t, err, c.args)
		assert.Equal(t, c.operands, got, c.args)
		assert.Equal(t, c.json, *j, c.args)
		assert.Equal(t, c.o, *o, c.args)
	}
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	_, err := Parse(fl, []string{"m", "--nope"})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "fsx: flag provided but not defined: -nope (see fsx --help)\n", ue.Line("fsx"))
	_, err = Parse(fl, []string{"-help"})
	assert.Equal(t, flag.ErrHelp, err)
}

func TestTimeout(t *testing.T) {
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	var d Timeout
	fl.Var(&d, "timeout", "")
	got, err := Parse(fl, []string{"m", "--timeout", "1m30s"})
	require.NoError(t, err)
	assert.Equal(t, []string{"m"}, got)
	assert.Equal(t, Timeout(90*time.Second), d)
	assert.Equal(t, "1m30s", d.String())
	for _, bad := range []string{"0", "0s", "-1s", "10", "soon"} {
		_, err := Parse(fl, []string{"m", "--timeout", bad})
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, bad)
	}
}
