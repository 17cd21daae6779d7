package pytorch

import (
	"errors"
	"strconv"
)

// The restricted reader for pickles that are not torch.save's: the
// metadata other checkpoint formats pickle (PyTorch Distributed
// Checkpoint's .metadata). The same interpreter reads the stream, with
// the same bounds; only the globals differ: the caller names the ones
// allowed, and nothing is ever imported or called — an allowed global is
// kept as its name, and what REDUCE, NEWOBJ and BUILD did with it is
// recorded in an [Object] for the caller to interpret.

// The values [Unpickle] returns, besides nil, bool, int64, float64,
// string and []byte.
type (
	// Tuple is a Python tuple.
	Tuple []any
	// List is a Python list (or set).
	List []any
	// Dict is a Python dict, its keys and values in the stream's order;
	// a key may be any value (an Object), so it is not a Go map.
	Dict struct{ Keys, Values []any }
	// Global is an allowed global used as a value ("torch.float32"),
	// as "module.name".
	Global string
	// Object is an allowed global applied: Class(*Args) by REDUCE, or
	// Class.__new__(Class, *Args) by NEWOBJ (New set), and State, what
	// BUILD gave it (nil if none).
	Object struct {
		Class string
		Args  []any
		New   bool
		State any
	}
)

// pyObject is an Object being built.
type pyObject struct {
	class string
	args  []any
	isNew bool
	state any
}

// gGeneric is a global a caller of Unpickle allowed.
const gGeneric globalKind = 255

func (u *unpickler) genericGlobal(module, name string) error {
	if !u.generic(module, name) {
		return perr(CodeForbidden, "the pickle imports %s, which is not one of the classes this file is made of; refused without running it", printable(module+"."+name))
	}
	return u.push(&pyGlobal{name: module + "." + name, kind: gGeneric})
}

// Unpickle reads the pickle stream data (named name in errors) with the
// restricted reader, allowing only the globals allow accepts (given as
// module and name), and returns the value it builds. Any other global
// is refused, naming it, before anything is done with it
// ([CodeForbidden]); a malformed stream is [CodeInvalidPickle], a bound
// exceeded [CodeLimit]. Shared values (the memo) are converted once; a
// value containing itself is refused as nested too deep.
func Unpickle(name string, data []byte, allow func(module, name string) bool) (any, error) {
	u := &unpickler{data: data, text: string(data), generic: allow}
	root, err := u.load()
	if err != nil {
		var pe *pickleErr
		if errors.As(err, &pe) {
			return nil, formatErr(name, pe.code, "", "%s", pe.msg)
		}
		if errors.Is(err, errNeedMore) {
			return nil, formatErr(name, CodeInvalidPickle, "", "the pickle stream ends before its STOP; truncated")
		}
		return nil, err
	}
	c := &converter{name: name, done: map[any]any{}}
	return c.convert(root, 0)
}

type converter struct {
	name   string
	done   map[any]any // converted containers, by their pointer
	visits int
}

func (c *converter) convert(v any, depth int) (any, error) {
	c.visits++
	if c.visits > maxVisits {
		return nil, formatErr(c.name, CodeLimit, "", "the pickle holds more than %d values", maxVisits)
	}
	if depth > maxDepth {
		return nil, formatErr(c.name, CodeLimit, "", "the pickle nests values more than %d deep", maxDepth)
	}
	switch v.(type) {
	case *pyTuple, *pyList, *pyDict, *pyObject:
		if out, ok := c.done[v]; ok {
			return out, nil
		}
	}
	var out any
	var err error
	switch t := v.(type) {
	case nil, bool, int64, float64:
		return t, nil
	case *pyStr:
		return t.s, nil
	case pyBytes:
		return []byte(t), nil
	case *pyGlobal:
		return Global(t.name), nil
	case *pyTuple:
		var items []any
		items, err = c.all(t.items, depth)
		out = Tuple(items)
	case *pyList:
		var items []any
		items, err = c.all(t.items, depth)
		out = List(items)
	case *pyDict:
		d := &Dict{}
		if d.Keys, err = c.all(t.keys, depth); err == nil {
			d.Values, err = c.all(t.vals, depth)
		}
		out = d
	case *pyObject:
		o := &Object{Class: t.class, New: t.isNew}
		if o.Args, err = c.all(t.args, depth); err == nil && t.state != nil {
			o.State, err = c.convert(t.state, depth+1)
		}
		out = o
	default:
		return nil, formatErr(c.name, CodeInvalidPickle, "", "the pickle builds %s", describe(v))
	}
	if err != nil {
		return nil, err
	}
	c.done[v] = out
	return out, nil
}

func (c *converter) all(items []any, depth int) ([]any, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]any, len(items))
	for i, it := range items {
		v, err := c.convert(it, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Describe names a value [Unpickle] returns, in a message: its type, and
// a short form of a string or integer.
func Describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		return "a bool"
	case int64:
		return "the integer " + strconv.FormatInt(t, 10)
	case float64:
		return "a float"
	case string:
		return "the string " + printable(t)
	case []byte:
		return "bytes"
	case Tuple:
		return "a tuple of " + strconv.Itoa(len(t))
	case List:
		return "a list of " + strconv.Itoa(len(t))
	case *Dict:
		return "a dict of " + strconv.Itoa(len(t.Keys))
	case Global:
		return string(t)
	case *Object:
		return "a " + t.Class
	}
	return "an unknown value"
}

// Printable cuts a name read from a file to 200 bytes and quotes what is
// not printable, so that a message stays one line.
func Printable(s string) string { return printable(s) }
