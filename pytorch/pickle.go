package pytorch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fsmount/fsmount/tensor"
)

// The pickle reader. It interprets the opcodes of protocols 2 to 5 (and
// the few of 0 and 1 that torch.save's protocol-2 stream uses) over a
// byte slice, building plain Go values. It never imports or calls
// anything: a GLOBAL names one of the few functions and classes a state
// dict is made of (allowed, below) or the stream is refused, naming the
// global; what REDUCE, NEWOBJ and BUILD do with an allowed one is written
// out here. Every count in the stream is checked against the bytes
// left before use, and the stack, the marks and the memo are bounded.

// Bounds of one pickle stream.
const (
	maxStack  = 1 << 20 // values on the stack and in MARK frames together
	maxMarks  = 256     // open MARKs: the nesting of a tuple, list or dict being built
	maxMemo   = 1 << 20 // memo entries
	maxDepth  = 64      // nesting of containers when naming the tensors
	maxVisits = 1 << 22 // values visited when naming the tensors
	// maxReduce bounds the nesting of one REDUCE inside another:
	// _rebuild_from_type_v2(func, new_type, args, state) applies func to
	// args, which torch.save nests once (a Parameter's rebuild inside).
	maxReduce = 8
)

// allocBudget is what reading a stream of n bytes may allocate from
// references to what it holds already (a memoized string encoded again,
// a memoized dict copied, a memoized tuple read as a shape), and what
// naming its tensors may allocate for their names: four times its
// length, and a MiB. Each such allocation is charged before it is made,
// so that a small file cannot take memory out of proportion to its size
// by referring to one large value many times.
func allocBudget(n int) int64 { return 4*int64(n) + 1<<20 }

// overBudget is the error of a stream of n bytes past its budget.
func overBudget(n int) error {
	return perr(CodeLimit, "the pickle would allocate more than %d bytes (four times its %d, and a MiB) by repeating values it holds", allocBudget(n), n)
}

// The values a stream builds. None is nil; bool, int64 and float64 are
// themselves; a string is a *pyStr (a pointer is boxed without an
// allocation, and the strings are cut from a slab); bytes are pyBytes.
type (
	pyStr   struct{ s string }
	pyBytes []byte
	pyTuple struct{ items []any }
	pyList  struct{ items []any }
	pyDict  struct{ keys, vals []any }
	// pyGlobal is an allowed global, by its kind.
	pyGlobal struct {
		name  string
		kind  globalKind
		dtype tensor.DType // of a storage class or a dtype
	}
	// storage is a storage a persistent id names.
	storage struct {
		key      string
		dtype    tensor.DType
		typeName string
		numel    uint64 // elements, as the id says
		off      int64  // its bytes in the file, once found
		size     int64
		found    bool   // its record was found in the archive
		id       string // the tensors' Storage: the file's base name and the key
	}
	// pyTensor is a tensor rebuilt by _rebuild_tensor(_v2).
	pyTensor struct {
		st      *storage
		offset  uint64 // in elements
		shape   []uint64
		strides []uint64
	}
)

type globalKind uint8

const (
	gDict          globalKind = iota + 1 // collections.OrderedDict, Counter
	gRebuildTensor                       // torch._utils._rebuild_tensor(_v2)
	gRebuildParam                        // torch._utils._rebuild_parameter(_with_state)
	gRebuildType                         // torch._tensor._rebuild_from_type_v2
	gTensorClass                         // torch.nn.parameter.Parameter, torch.Tensor
	gSize                                // torch.Size
	gStorage                             // torch.FloatStorage and the others
	gDType                               // torch.float32 and the others
	gDevice                              // torch.device
	gSet                                 // builtins.set, frozenset
	gBytes                               // _codecs.encode, builtins.bytearray
	gUnsupported                         // a rebuild function of a tensor kind not read
)

// storageTypes are the storage classes, with their element types.
var storageTypes = map[string]tensor.DType{
	"FloatStorage": tensor.F32, "DoubleStorage": tensor.F64, "HalfStorage": tensor.F16,
	"BFloat16Storage": tensor.BF16, "LongStorage": tensor.I64, "IntStorage": tensor.I32,
	"ShortStorage": tensor.I16, "CharStorage": tensor.I8, "ByteStorage": tensor.U8,
	"BoolStorage": tensor.BOOL, "UntypedStorage": tensor.U8,
	"Float8_e4m3fnStorage": tensor.F8_E4M3, "Float8_e5m2Storage": tensor.F8_E5M2,
	"UInt16Storage": tensor.U16, "UInt32Storage": tensor.U32, "UInt64Storage": tensor.U64,
	"ComplexFloatStorage": tensor.C64,
}

// dtypeNames are torch's dtypes as globals (torch.NAME), with their
// element types: the one table of them (package dcp reads its dtypes
// with [DTypeOf]).
var dtypeNames = map[string]tensor.DType{
	"float32": tensor.F32, "float": tensor.F32, "float64": tensor.F64, "double": tensor.F64,
	"float16": tensor.F16, "half": tensor.F16, "bfloat16": tensor.BF16, "int64": tensor.I64,
	"long": tensor.I64, "int32": tensor.I32, "int": tensor.I32, "int16": tensor.I16,
	"short": tensor.I16, "int8": tensor.I8, "uint8": tensor.U8, "bool": tensor.BOOL,
	"float8_e4m3fn": tensor.F8_E4M3, "float8_e5m2": tensor.F8_E5M2, "uint16": tensor.U16,
	"uint32": tensor.U32, "uint64": tensor.U64, "complex64": tensor.C64,
	"float8_e4m3fnuz": tensor.F8_E4M3FNUZ, "float8_e5m2fnuz": tensor.F8_E5M2FNUZ,
	"float8_e8m0fnu": tensor.F8_E8M0,
}

// DTypeOf returns the element type of torch's dtype torch.NAME
// ("bfloat16", "float8_e4m3fn"), as a pickle names it.
func DTypeOf(name string) (tensor.DType, bool) {
	d, ok := dtypeNames[name]
	return d, ok
}

// allowed returns the kind of an allowed global, given as module and
// name. It follows the list torch.load(weights_only=True) allows
// (torch/_weights_only_unpickler.py), less what a checkpoint of weights
// never holds.
func allowed(module, name string) (pyGlobal, bool) {
	g := pyGlobal{name: module + "." + name}
	switch module {
	case "__builtin__": // Python 2's name, as pickle's own mapping does
		module = "builtins"
	case "copy_reg":
		module = "copyreg"
	}
	switch module + "." + name {
	case "collections.OrderedDict", "collections.Counter":
		g.kind = gDict
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor":
		g.kind = gRebuildTensor
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		g.kind = gRebuildParam
	case "torch._tensor._rebuild_from_type_v2":
		g.kind = gRebuildType
	case "torch.nn.parameter.Parameter", "torch.Tensor", "torch._tensor.Tensor":
		g.kind = gTensorClass
	case "torch.Size":
		g.kind = gSize
	case "torch.device":
		g.kind = gDevice
	case "builtins.set", "builtins.frozenset":
		g.kind = gSet
	case "_codecs.encode", "builtins.bytearray":
		g.kind = gBytes
	case "torch._utils._rebuild_qtensor", "torch._utils._rebuild_sparse_tensor",
		"torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_wrapper_subclass",
		"torch._utils._rebuild_tensor_v3", "torch._utils._rebuild_device_tensor_from_numpy",
		"torch._utils._rebuild_device_tensor_from_cpu_tensor", "torch._utils._rebuild_nested_tensor",
		"torch._utils._rebuild_sparse_csr_tensor":
		g.kind = gUnsupported
	default:
		if module == "torch" || module == "torch.storage" || module == "torch.cuda" {
			if d, ok := storageTypes[name]; ok {
				g.kind, g.dtype = gStorage, d
				return g, true
			}
		}
		if module == "torch" {
			if d, ok := dtypeNames[name]; ok {
				g.kind, g.dtype = gDType, d
				return g, true
			}
		}
		return g, false
	}
	return g, true
}

// pickleErr is a failure of the stream: the code, and what was found.
type pickleErr struct {
	code Code
	msg  string
}

func (e *pickleErr) Error() string { return e.msg }

// errNeedMore says the stream ran past the bytes given, which may be a
// prefix of the file (the legacy format, read a growing prefix at a time).
var errNeedMore = errors.New("the pickle stream ends early")

// unpickler reads one stream. persistent resolves a persistent id.
//
// A data.pkl makes a dozen values for each tensor, so the reader keeps
// its allocations few: tuples, dicts, tensors and their shapes are cut
// from slabs, integers past 255 are boxed once per value (shapes and
// strides repeat), strings are cut from text when it is set, and the
// memo, whose indices a pickler hands out in order, is a slice.
type unpickler struct {
	data []byte
	// text, when set, is data as a string (a zip's data.pkl, read whole):
	// the stream's strings are cut from it rather than copied, so the
	// tensors' names keep it alive — no longer than the file's own bytes.
	text       string
	pos        int
	stack      []any
	marks      []int          // stack lengths at each open MARK
	memo       []any          // memo[i] is entry i, for the indices given in order
	memoMore   map[uint32]any // the others, all past len(memo)
	persistent func(pid any) (any, error)
	spent      int64 // bytes charged against allocBudget(len(data))
	reducing   int   // REDUCEs being applied, one inside another
	slab       []any
	tuples     []pyTuple
	dicts      []pyDict
	tensors    []pyTensor
	strs       []pyStr
	dims       []uint64
	ints       [64]struct {
		v   int64
		box any
	}

	// generic, when set, replaces the state dict's list of globals
	// (Unpickle): the globals it allows are kept as names, and REDUCE,
	// NEWOBJ and BUILD of one record what they were given (a pyObject).
	generic func(module, name string) bool
}

// Slab sizes: small, so that a short stream allocates little.
const (
	slabLen   = 64
	firstSlab = 4096
)

func perr(code Code, format string, args ...any) error {
	return &pickleErr{code, fmt.Sprintf(format, args...)}
}

func (u *unpickler) take(n int) ([]byte, error) {
	if n < 0 || n > len(u.data)-u.pos {
		return nil, errNeedMore
	}
	b := u.data[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

func (u *unpickler) u8() (int, error) {
	b, err := u.take(1)
	if err != nil {
		return 0, err
	}
	return int(b[0]), nil
}

// uint reads a little-endian unsigned integer of width bytes (1, 2, 4 or 8).
func (u *unpickler) uint(width int) (uint64, error) {
	b, err := u.take(width)
	if err != nil {
		return 0, err
	}
	switch width {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), nil
	}
	return binary.LittleEndian.Uint64(b), nil
}

// counted reads a length of lenBytes (1, 4 or 8) and the bytes it
// counts, checked against what is left before anything is taken.
func (u *unpickler) counted(lenBytes int) ([]byte, error) {
	n, err := u.uint(lenBytes)
	if err != nil {
		return nil, err
	}
	if n > uint64(len(u.data)-u.pos) {
		return nil, errNeedMore
	}
	return u.take(int(n))
}

func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.data); i++ {
		if u.data[i] == '\n' {
			s := string(u.data[u.pos:i])
			u.pos = i + 1
			return s, nil
		}
	}
	return "", errNeedMore
}

func (u *unpickler) push(v any) error {
	if len(u.stack) >= maxStack {
		return perr(CodeLimit, "the pickle stack grows past %d values", maxStack)
	}
	u.stack = append(u.stack, v)
	return nil
}

func (u *unpickler) top() (any, error) {
	base := 0
	if n := len(u.marks); n > 0 {
		base = u.marks[n-1]
	}
	if len(u.stack) <= base {
		return nil, perr(CodeInvalidPickle, "stack underflow at byte %d", u.pos)
	}
	return u.stack[len(u.stack)-1], nil
}

func (u *unpickler) pop() (any, error) {
	v, err := u.top()
	if err == nil {
		u.stack = u.stack[:len(u.stack)-1]
	}
	return v, err
}

// popMark pops the values since the last MARK, and the MARK. When keep
// is false the values are those of the stack itself, valid until the
// next push: for an opcode that copies them into a container at once
// (SETITEMS, APPENDS, DICT), so that the largest runs of a stream — a
// state dict's items — are not copied twice.
func (u *unpickler) popMark(keep bool) ([]any, error) {
	n := len(u.marks)
	if n == 0 {
		return nil, perr(CodeInvalidPickle, "no MARK to pop to at byte %d", u.pos)
	}
	base := u.marks[n-1]
	u.marks = u.marks[:n-1]
	items := u.stack[base:]
	if keep {
		items = u.alloc(len(u.stack) - base)
		copy(items, u.stack[base:])
	}
	u.stack = u.stack[:base]
	return items, nil
}

// alloc returns n slots for the items of a tuple or list, cut from a
// shared slab: a data.pkl builds thousands of small tuples, and one
// allocation for many of them keeps opening a checkpoint cheap. The
// slice's capacity is n, so appending to it never writes into the slab.
// The slab holds no more than twice the items popped, which the stack
// bounds, or than a slot for 8 bytes of the stream (a torch.save stream
// makes about one for 10), at most firstSlab: the first is sized so.
func (u *unpickler) alloc(n int) []any {
	if cap(u.slab)-len(u.slab) < n {
		u.slab = make([]any, 0, max(n, 2*cap(u.slab), min(len(u.data)/8, firstSlab), 256))
	}
	start := len(u.slab)
	u.slab = u.slab[:start+n]
	return u.slab[start : start+n : start+n]
}

// reset readies u for the next stream of a file: an empty stack and memo.
func (u *unpickler) reset() {
	u.stack, u.marks, u.memo, u.memoMore = nil, nil, nil, nil
}

// memoLen is the number of memo entries.
func (u *unpickler) memoLen() int { return len(u.memo) + len(u.memoMore) }

func (u *unpickler) memoize(idx uint32, v any) error {
	if int64(idx) < int64(len(u.memo)) {
		u.memo[idx] = v
		return nil
	}
	_, had := u.memoMore[idx]
	if !had && u.memoLen() >= maxMemo {
		return perr(CodeLimit, "the pickle memo grows past %d entries", maxMemo)
	}
	if int64(idx) == int64(len(u.memo)) {
		// The next index in order: appended, and dropped from the others
		// where an earlier out-of-order PUT stored it.
		if had {
			delete(u.memoMore, idx)
		}
		u.memo = append(u.memo, v)
		return nil
	}
	if u.memoMore == nil {
		u.memoMore = map[uint32]any{}
	}
	u.memoMore[idx] = v
	return nil
}

func (u *unpickler) memoGet(idx uint32) (any, bool) {
	if int64(idx) < int64(len(u.memo)) {
		return u.memo[idx], true
	}
	v, ok := u.memoMore[idx]
	return v, ok
}

// boxInt returns v as a value; integers up to 255 box without an
// allocation, and the others are boxed once per value seen recently.
func (u *unpickler) boxInt(v int64) any {
	if uint64(v) < 256 {
		return v
	}
	c := &u.ints[uint64(v)*0x9E3779B97F4A7C15>>58]
	if c.box == nil || c.v != v {
		c.v, c.box = v, v
	}
	return c.box
}

// charge counts n bytes about to be allocated for a value the stream
// refers to, and fails past the stream's budget (see allocBudget).
func (u *unpickler) charge(n int) error {
	if n < 0 || int64(n) > allocBudget(len(u.data))-u.spent {
		return overBudget(len(u.data))
	}
	u.spent += int64(n)
	return nil
}

// str returns b, the bytes just taken, as a string: cut from text when
// it is set, else copied (and charged).
func (u *unpickler) str(b []byte) (string, error) {
	if len(u.text) == len(u.data) && len(b) <= u.pos {
		return u.text[u.pos-len(b) : u.pos], nil
	}
	if err := u.charge(len(b)); err != nil {
		return "", err
	}
	return string(b), nil
}

// string returns s as a value, cut from a slab.
func (u *unpickler) string(s string) *pyStr {
	if len(u.strs) == cap(u.strs) {
		u.strs = make([]pyStr, 0, slabLen)
	}
	u.strs = append(u.strs, pyStr{s})
	return &u.strs[len(u.strs)-1]
}

func (u *unpickler) tuple(items []any) *pyTuple {
	if len(u.tuples) == cap(u.tuples) {
		u.tuples = make([]pyTuple, 0, slabLen)
	}
	u.tuples = append(u.tuples, pyTuple{items})
	return &u.tuples[len(u.tuples)-1]
}

func (u *unpickler) dict() *pyDict {
	if len(u.dicts) == cap(u.dicts) {
		u.dicts = make([]pyDict, 0, slabLen)
	}
	u.dicts = append(u.dicts, pyDict{})
	return &u.dicts[len(u.dicts)-1]
}

// uints returns n slots for a shape or strides, capped at n so that an
// append never writes into the slab.
func (u *unpickler) uints(n int) []uint64 {
	if cap(u.dims)-len(u.dims) < n {
		u.dims = make([]uint64, 0, max(n, 8*slabLen))
	}
	start := len(u.dims)
	u.dims = u.dims[:start+n]
	return u.dims[start : start+n : start+n]
}

// load interprets the stream from u.pos up to its STOP, and returns the
// value left on the stack.
func (u *unpickler) load() (any, error) {
	for {
		at := u.pos
		op, err := u.u8()
		if err != nil {
			return nil, err
		}
		if err := u.step(byte(op)); err != nil {
			if err == errStop {
				if len(u.marks) != 0 || len(u.stack) != 1 {
					return nil, perr(CodeInvalidPickle, "STOP with %d values and %d marks on the stack", len(u.stack), len(u.marks))
				}
				return u.stack[0], nil
			}
			var pe *pickleErr
			if errors.As(err, &pe) && pe.code == CodeInvalidPickle {
				return nil, perr(CodeInvalidPickle, "opcode 0x%02x at byte %d: %s", op, at, pe.msg)
			}
			return nil, err
		}
	}
}

var errStop = errors.New("STOP")

// emptyTuple is every empty tuple (a tuple is never changed): a state
// dict makes one for each tensor.
var emptyTuple = &pyTuple{}

// argWidth is the width in bytes of the integer that follows an opcode:
// the value of BININT1, BININT2 and BININT, the length of a LONG, a
// string or bytes, the index of a memo entry.
var argWidth = [256]uint8{
	'K': 1, 'M': 2, 'J': 4, // BININT1, BININT2, BININT
	0x8a: 1, 0x8b: 4, // LONG1, LONG4
	'U': 1, 'T': 4, // SHORT_BINSTRING, BINSTRING
	0x8c: 1, 'X': 4, 0x8d: 8, // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
	'C': 1, 'B': 4, 0x8e: 8, 0x96: 8, // SHORT_BINBYTES, BINBYTES, BINBYTES8, BYTEARRAY8
	'q': 1, 'r': 4, // BINPUT, LONG_BINPUT
	'h': 1, 'j': 4, // BINGET, LONG_BINGET
}

func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		v, err := u.u8()
		if err != nil {
			return err
		}
		if v < 2 || v > 5 {
			return perr(CodeInvalidPickle, "pickle protocol %d (2 to 5 are read)", v)
		}
		return nil
	case 0x95: // FRAME: a length hint only
		_, err := u.take(8)
		return err
	case '.': // STOP
		return errStop
	case '(': // MARK
		if len(u.marks) >= maxMarks {
			return perr(CodeLimit, "more than %d nested MARKs", maxMarks)
		}
		u.marks = append(u.marks, len(u.stack))
		return nil
	case '0': // POP
		_, err := u.pop()
		return err
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return err
		}
		return u.push(v)
	case 'N':
		return u.push(nil)
	case 0x88: // NEWTRUE
		return u.push(true)
	case 0x89: // NEWFALSE
		return u.push(false)
	case 'J', 'K', 'M': // BININT (signed), BININT1, BININT2
		v, err := u.uint(int(argWidth[op]))
		if err != nil {
			return err
		}
		if op == 'J' {
			return u.push(u.boxInt(int64(int32(v))))
		}
		return u.push(u.boxInt(int64(v)))
	case 'G': // BINFLOAT, big-endian
		b, err := u.take(8)
		if err != nil {
			return err
		}
		return u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 0x8a, 0x8b, 'U', 'T', 0x8c, 'X', 0x8d, 'C', 'B', 0x8e, 0x96: // LONG, strings, bytes: counted
		b, err := u.counted(int(argWidth[op]))
		if err != nil {
			return err
		}
		return u.push2(op, b)
	case ')': // EMPTY_TUPLE
		return u.push(emptyTuple)
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op - 0x84)
		items := u.alloc(n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		return u.push(u.tuple(items))
	case ']', 0x8f: // EMPTY_LIST, EMPTY_SET
		return u.push(&pyList{})
	case '}': // EMPTY_DICT
		return u.push(u.dict())
	case '1', 't', 'l', 'd', 'e', 'u', 0x90, 0x91: // the values since the last MARK
		// A tuple or list keeps its items; the others copy them.
		items, err := u.popMark(op == 't' || op == 'l' || op == 0x91)
		if err != nil {
			return err
		}
		return u.marked(op, items)
	case 'a': // APPEND
		v, err := u.pop()
		if err != nil {
			return err
		}
		return u.appendTo([]any{v})
	case 's': // SETITEM
		k, v, err := u.pop2()
		if err != nil {
			return err
		}
		return u.setItems([]any{k, v})
	case 'c': // GLOBAL
		module, err := u.line()
		if err != nil {
			return err
		}
		name, err := u.line()
		if err != nil {
			return err
		}
		return u.global(module, name)
	case 0x93: // STACK_GLOBAL
		m, n, err := u.pop2()
		if err != nil {
			return err
		}
		module, ok1 := m.(*pyStr)
		name, ok2 := n.(*pyStr)
		if !ok1 || !ok2 {
			return perr(CodeInvalidPickle, "STACK_GLOBAL of a non-string")
		}
		return u.global(module.s, name.s)
	case 'R', 0x81, 0x92: // REDUCE, NEWOBJ, NEWOBJ_EX
		if op == 0x92 { // its kwargs, unused
			if _, err := u.pop(); err != nil {
				return err
			}
		}
		f, args, err := u.pop2()
		if err != nil {
			return err
		}
		var v any
		if op == 'R' {
			v, err = u.reduce(f, args)
		} else {
			v, err = u.newObj(f, args)
		}
		if err != nil {
			return err
		}
		return u.push(v)
	case 'b': // BUILD: the state of an OrderedDict (its _metadata) or of a tensor is not needed
		state, err := u.pop()
		if err != nil {
			return err
		}
		obj, err := u.top()
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *pyDict, *pyTensor:
			return nil
		case *pyObject:
			o.state = state
			return nil
		}
		return perr(CodeInvalidPickle, "BUILD of %s", describe(obj))
	case 'q', 'r', 0x94: // BINPUT, LONG_BINPUT, MEMOIZE
		idx := uint64(u.memoLen())
		if op != 0x94 {
			var err error
			if idx, err = u.uint(int(argWidth[op])); err != nil {
				return err
			}
		}
		v, err := u.top()
		if err != nil {
			return err
		}
		return u.memoize(uint32(idx), v)
	case 'h', 'j': // BINGET, LONG_BINGET
		idx, err := u.uint(int(argWidth[op]))
		if err != nil {
			return err
		}
		v, ok := u.memoGet(uint32(idx))
		if !ok {
			return perr(CodeInvalidPickle, "memo index %d was never stored", idx)
		}
		return u.push(v)
	case 'Q': // BINPERSID
		pid, err := u.pop()
		if err != nil {
			return err
		}
		if u.persistent == nil {
			return perr(CodeInvalidPickle, "a persistent id where none is expected")
		}
		v, err := u.persistent(pid)
		if err != nil {
			return err
		}
		return u.push(v)
	}
	return perr(CodeInvalidPickle, "opcode 0x%02x is not one a torch.save stream uses", op)
}

// push2 pushes the value of a counted opcode's bytes b: an integer, a
// string or bytes.
func (u *unpickler) push2(op byte, b []byte) error {
	switch op {
	case 0x8a, 0x8b: // LONG1, LONG4
		if v, ok := decodeLong(b); ok {
			return u.push(u.boxInt(v))
		}
		// Only the legacy format's magic number is this long; an integer
		// past 64 bits is kept as its bytes.
	case 'U', 'T', 0x8c, 'X', 0x8d: // Python 2 str, unicode
		if op != 'U' && op != 'T' && !utf8.Valid(b) {
			return perr(CodeInvalidPickle, "a string is not UTF-8")
		}
		s, err := u.str(b)
		if err != nil {
			return err
		}
		return u.push(u.string(s))
	}
	if err := u.charge(len(b)); err != nil {
		return err
	}
	return u.push(pyBytes(append([]byte(nil), b...)))
}

// marked builds what an opcode makes of the values since the last MARK.
func (u *unpickler) marked(op byte, items []any) error {
	switch op {
	case '1': // POP_MARK
		return nil
	case 't': // TUPLE
		return u.push(u.tuple(items))
	case 'l', 0x91: // LIST, FROZENSET
		return u.push(&pyList{items})
	case 'e', 0x90: // APPENDS, ADDITEMS
		return u.appendTo(items)
	case 'u': // SETITEMS
		return u.setItems(items)
	}
	d := u.dict() // DICT
	if err := d.setItems(items); err != nil {
		return err
	}
	return u.push(d)
}

// pop2 pops the two values on top of the stack, a below b.
func (u *unpickler) pop2() (a, b any, err error) {
	if b, err = u.pop(); err != nil {
		return nil, nil, err
	}
	if a, err = u.pop(); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

func (u *unpickler) global(module, name string) error {
	if u.generic != nil {
		return u.genericGlobal(module, name)
	}
	g, ok := allowed(module, name)
	if !ok {
		return perr(CodeForbidden, "the pickle imports %s, which a checkpoint of weights does not use; refused without running it", printable(module+"."+name))
	}
	return u.push(&g)
}

// topAs returns the top of the stack, which op (as "APPEND to") needs to
// be a T.
func topAs[T any](u *unpickler, op string) (T, error) {
	var t T
	v, err := u.top()
	if err != nil {
		return t, err
	}
	t, ok := v.(T)
	if !ok {
		return t, perr(CodeInvalidPickle, "%s %s", op, describe(v))
	}
	return t, nil
}

func (u *unpickler) appendTo(items []any) error {
	l, err := topAs[*pyList](u, "APPEND to")
	if err != nil {
		return err
	}
	if len(l.items)+len(items) > maxStack {
		return perr(CodeLimit, "a list grows past %d items", maxStack)
	}
	l.items = append(l.items, items...)
	return nil
}

func (u *unpickler) setItems(items []any) error {
	d, err := topAs[*pyDict](u, "SETITEM on")
	if err != nil {
		return err
	}
	return d.setItems(items)
}

func (d *pyDict) setItems(items []any) error {
	if len(items)%2 != 0 {
		return perr(CodeInvalidPickle, "odd number of items for a dict")
	}
	if len(d.keys)+len(items)/2 > maxStack {
		return perr(CodeLimit, "a dict grows past %d items", maxStack)
	}
	d.keys = slices.Grow(d.keys, len(items)/2)
	d.vals = slices.Grow(d.vals, len(items)/2)
	for i := 0; i < len(items); i += 2 {
		d.keys = append(d.keys, items[i])
		d.vals = append(d.vals, items[i+1])
	}
	return nil
}

// decodeLong decodes a two's complement little-endian integer of at most
// 8 bytes.
func decodeLong(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if len(b) > 8 {
		return 0, false
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if shift := 64 - 8*len(b); shift > 0 && b[len(b)-1]&0x80 != 0 {
		return int64(v<<shift) >> shift, true
	}
	return int64(v), true
}

func tupleItems(v any) ([]any, bool) {
	switch t := v.(type) {
	case *pyTuple:
		return t.items, true
	case *pyList:
		return t.items, true
	}
	return nil, false
}

// reduce applies an allowed global to its arguments, which are a tuple
// as in Python (whose REDUCE refuses anything else): a tuple is built
// from values made before it, so it never holds itself, and a stream
// cannot make a REDUCE whose arguments lead back to it. Nested REDUCEs
// (_rebuild_from_type_v2) are bounded by maxReduce.
func (u *unpickler) reduce(f, args any) (any, error) {
	g, ok := f.(*pyGlobal)
	if !ok {
		return nil, perr(CodeInvalidPickle, "REDUCE of %s", describe(f))
	}
	t, ok := args.(*pyTuple)
	if !ok {
		return nil, perr(CodeInvalidPickle, "REDUCE of %s with %s, not a tuple of arguments", g.name, describe(args))
	}
	if u.reducing >= maxReduce {
		return nil, perr(CodeLimit, "%s nests calls more than %d deep; a state dict nests them once", g.name, maxReduce)
	}
	u.reducing++
	defer func() { u.reducing-- }()
	a := t.items
	switch g.kind {
	case gDict:
		// OrderedDict(d) copies d: a stream could copy one large dict
		// again and again for a few bytes each, so copies are charged.
		d := u.dict()
		if len(a) == 1 {
			if src, ok := a[0].(*pyDict); ok {
				if err := u.charge(32 * len(src.keys)); err != nil {
					return nil, err
				}
				d.keys, d.vals = append(d.keys, src.keys...), append(d.vals, src.vals...)
			}
		}
		return d, nil
	case gSet:
		if len(a) == 1 {
			if items, ok := tupleItems(a[0]); ok {
				if err := u.charge(16 * len(items)); err != nil {
					return nil, err
				}
				return &pyList{append([]any(nil), items...)}, nil
			}
		}
		return &pyList{}, nil
	case gBytes:
		if len(a) >= 1 {
			if s, ok := a[0].(*pyStr); ok {
				// _codecs.encode(s, "latin1"): each rune is one byte. A
				// memoized string may be encoded again and again.
				if err := u.charge(len(s.s)); err != nil {
					return nil, err
				}
				b := make([]byte, 0, len(s.s))
				for _, r := range s.s {
					b = append(b, byte(r))
				}
				return pyBytes(b), nil
			}
			if b, ok := a[0].(pyBytes); ok {
				return b, nil
			}
		}
		return pyBytes(nil), nil
	case gSize:
		if len(a) == 1 {
			if items, ok := tupleItems(a[0]); ok {
				return u.tuple(items), nil
			}
		}
		return u.tuple(nil), nil
	case gDevice:
		if len(a) >= 1 {
			return a[0], nil
		}
		return &pyStr{"cpu"}, nil
	case gRebuildTensor:
		return u.rebuildTensor(g.name, a)
	case gRebuildParam:
		if len(a) < 1 {
			return nil, perr(CodeInvalidPickle, "%s without arguments", g.name)
		}
		t, ok := a[0].(*pyTensor)
		if !ok {
			return nil, perr(CodeInvalidPickle, "%s of %s", g.name, describe(a[0]))
		}
		return t, nil
	case gRebuildType:
		// _rebuild_from_type_v2(func, new_type, args, state): func(*args),
		// where new_type is a tensor class.
		if len(a) < 3 {
			return nil, perr(CodeInvalidPickle, "%s with %d arguments", g.name, len(a))
		}
		if c, ok := a[1].(*pyGlobal); !ok || c.kind != gTensorClass {
			return nil, perr(CodeForbidden, "%s makes a %s, not a tensor; refused", g.name, describe(a[1]))
		}
		return u.reduce(a[0], a[2])
	case gUnsupported:
		return nil, perr(CodeUnsupported, "a tensor rebuilt by %s (quantized, sparse, nested or on a device) is not read", g.name)
	case gGeneric:
		return &pyObject{class: g.name, args: a}, nil
	}
	return nil, perr(CodeForbidden, "the pickle calls %s, which a checkpoint of weights does not call; refused", g.name)
}

func (u *unpickler) newObj(cls, args any) (any, error) {
	g, ok := cls.(*pyGlobal)
	if !ok {
		return nil, perr(CodeInvalidPickle, "NEWOBJ of %s", describe(cls))
	}
	a, _ := tupleItems(args)
	switch g.kind {
	case gGeneric:
		return &pyObject{class: g.name, args: a, isNew: true}, nil
	case gDict:
		return u.dict(), nil
	case gSet:
		return &pyList{}, nil
	case gTensorClass:
		if len(a) >= 1 {
			if t, ok := a[0].(*pyTensor); ok {
				return t, nil
			}
		}
	}
	return nil, perr(CodeForbidden, "the pickle makes a new %s; refused", g.name)
}

func asUint(v any) (uint64, bool) {
	i, ok := v.(int64)
	return uint64(i), ok && i >= 0
}

// uintsOf reads a shape or strides: a tuple or list of integers. A
// memoized one may be read for many tensors, so its copy is charged.
func (u *unpickler) uintsOf(v any) ([]uint64, bool, error) {
	items, ok := tupleItems(v)
	if !ok {
		return nil, false, nil
	}
	if err := u.charge(8 * len(items)); err != nil {
		return nil, false, err
	}
	out := u.uints(len(items))
	for i, it := range items {
		if out[i], ok = asUint(it); !ok {
			return nil, false, nil
		}
	}
	return out, true, nil
}

// rebuildTensor is _rebuild_tensor_v2(storage, storage_offset, size,
// stride, requires_grad, backward_hooks[, metadata]) and the older
// _rebuild_tensor(storage, storage_offset, size, stride).
func (u *unpickler) rebuildTensor(name string, a []any) (any, error) {
	if len(a) < 4 {
		return nil, perr(CodeInvalidPickle, "%s with %d arguments", name, len(a))
	}
	st, ok := a[0].(*storage)
	if !ok {
		return nil, perr(CodeInvalidPickle, "%s of %s, not a storage", name, describe(a[0]))
	}
	off, ok1 := asUint(a[1])
	shape, ok2, err := u.uintsOf(a[2])
	if err != nil {
		return nil, err
	}
	strides, ok3, err := u.uintsOf(a[3])
	if err != nil {
		return nil, err
	}
	if !ok1 || !ok2 || !ok3 || len(shape) != len(strides) {
		return nil, perr(CodeInvalidTensor, "%s: offset %s, size %s, stride %s are not a tensor's", name, describe(a[1]), describe(a[2]), describe(a[3]))
	}
	if len(a) >= 6 {
		if d, ok := a[5].(*pyDict); ok && len(d.keys) > 0 {
			return nil, perr(CodeUnsupported, "a tensor with backward hooks is not read")
		}
	}
	if len(u.tensors) == cap(u.tensors) {
		u.tensors = make([]pyTensor, 0, slabLen)
	}
	u.tensors = append(u.tensors, pyTensor{st: st, offset: off, shape: shape, strides: strides})
	return &u.tensors[len(u.tensors)-1], nil
}

// describe names a value of the unpickler's own types in a message; the
// values the two unpicklers share, and those of [Unpickle], are named by
// [Describe].
func describe(v any) string {
	switch t := v.(type) {
	case *pyStr:
		return "a string"
	case pyBytes:
		return "bytes"
	case *pyTuple:
		return "a tuple of " + strconv.Itoa(len(t.items))
	case *pyList:
		return "a list of " + strconv.Itoa(len(t.items))
	case *pyDict:
		return "a dict of " + strconv.Itoa(len(t.keys))
	case *pyGlobal:
		return t.name
	case *storage:
		return "a storage"
	case *pyTensor:
		return "a tensor"
	}
	return Describe(v)
}

// printable cuts a name from the file to 200 bytes and quotes what is not
// printable, so that a message stays one line.
func printable(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	q := strconv.Quote(s)
	if q[1:len(q)-1] == s {
		return s
	}
	return q
}
