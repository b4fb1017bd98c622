import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"syscall"
)

// The wire format (docs/guards.md, "Values across the pipe"), both sides' writer and reader: data only, decoded
// into the type the function declares; an interface{} takes Go's own types (int, float64, string, bool, nil,
// []interface{}, map[interface{}]interface{}, []byte).

// rsCannot is what rsPut panics with: a value of a kind the wire does not carry.
type rsCannot string

var rsNatural = map[byte]reflect.Type{
	'T': reflect.TypeOf(true), 'F': reflect.TypeOf(true), 'i': reflect.TypeOf(0), 'd': reflect.TypeOf(0.0),
	's': reflect.TypeOf(""), 'c': reflect.TypeOf(""), 'y': reflect.TypeOf([]byte{}),
	'l': reflect.TypeOf([]interface{}{}), 't': reflect.TypeOf([]interface{}{}), 'e': reflect.TypeOf([]interface{}{}),
	'm': reflect.TypeOf(map[interface{}]interface{}{}),
}

func rsPut(out []byte, value reflect.Value) []byte {
	switch value.Kind() {
	case reflect.Invalid:
		return append(out, 'N')
	case reflect.Bool:
		if value.Bool() {
			return append(out, 'T')
		}
		return append(out, 'F')
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(append(out, 'i'), value.Int(), 10), ';')
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return append(strconv.AppendUint(append(out, 'i'), value.Uint(), 10), ';')
	case reflect.Float32, reflect.Float64:
		return append(out, fmt.Sprintf("d%016x", math.Float64bits(value.Float()))...)
	case reflect.String:
		return append(append(out, fmt.Sprintf("s%d:", value.Len())...), value.String()...)
	case reflect.Slice, reflect.Array:
		out = append(out, fmt.Sprintf("l%d:", value.Len())...)
		for i := 0; i < value.Len(); i++ {
			out = rsPut(out, value.Index(i))
		}
		return out
	case reflect.Map:
		out = append(out, fmt.Sprintf("m%d:", value.Len())...)
		for pairs := value.MapRange(); pairs.Next(); {
			out = rsPut(rsPut(out, pairs.Key()), pairs.Value())
		}
		return out
	case reflect.Interface:
		return rsPut(out, value.Elem())
	}
	panic(rsCannot(fmt.Sprintf("a %v is not a value that crosses to the tests", value.Type())))
}

func rsByte(in *bufio.Reader) byte {
	tag, err := in.ReadByte()
	if err != nil {
		panic("the other side ended in the middle of a value")
	}
	return tag
}

// rsNumber is the digits up to end.
func rsNumber(in *bufio.Reader, end byte) string {
	digits := []byte{}
	for next := rsByte(in); next != end; next = rsByte(in) {
		if len(digits) > 100000 {
			panic("a number without its end in the wire format")
		}
		digits = append(digits, next)
	}
	return string(digits)
}

func rsCount(in *bufio.Reader) int {
	count, err := strconv.Atoi(rsNumber(in, ':'))
	if err != nil || count < 0 {
		panic("a count that is not one in the wire format")
	}
	return count
}

func rsBytes(in *bufio.Reader, count int) []byte {
	data, err := io.ReadAll(io.LimitReader(in, int64(count)))
	if err != nil || len(data) != count {
		panic("the other side ended in the middle of a value")
	}
	return data
}

// rsTake reads one value as the type wanted: a value the type cannot hold panics.
func rsTake(in *bufio.Reader, wanted reflect.Type) reflect.Value {
	tag := rsByte(in)
	if natural, ok := rsNatural[tag]; ok && wanted.Kind() == reflect.Interface && wanted.NumMethod() == 0 {
		wanted = natural
	}
	value, kind := reflect.New(wanted).Elem(), wanted.Kind()
	switch tag {
	case 'N', 'U':
		if kind == reflect.Interface || kind == reflect.Slice || kind == reflect.Map || kind == reflect.Pointer {
			return value
		}
	case 'T', 'F':
		if kind == reflect.Bool {
			value.SetBool(tag == 'T')
			return value
		}
	case 'i':
		digits := rsNumber(in, ';')
		if signed, err := strconv.ParseInt(digits, 10, 64); err == nil && value.CanInt() && !value.OverflowInt(signed) {
			value.SetInt(signed)
			return value
		}
		if unsigned, err := strconv.ParseUint(digits, 10, 64); err == nil && value.CanUint() &&
			!value.OverflowUint(unsigned) {
			value.SetUint(unsigned)
			return value
		}
	case 'd':
		bits, err := strconv.ParseUint(string(rsBytes(in, 16)), 16, 64)
		if err == nil && value.CanFloat() {
			value.SetFloat(math.Float64frombits(bits))
			return value
		}
	case 's', 'c', 'y':
		data := rsBytes(in, rsCount(in))
		if kind == reflect.String {
			value.SetString(string(data))
			return value
		}
		if kind == reflect.Slice && wanted.Elem().Kind() == reflect.Uint8 {
			value.SetBytes(data)
			return value
		}
	case 'l', 't', 'e':
		if kind == reflect.Slice {
			value = reflect.MakeSlice(wanted, 0, 0)
			for count := rsCount(in); count > 0; count-- {
				value = reflect.Append(value, rsTake(in, wanted.Elem()))
			}
			return value
		}
	case 'm':
		if kind == reflect.Map {
			value = reflect.MakeMap(wanted)
			for count := rsCount(in); count > 0; count-- {
				key := rsTake(in, wanted.Key())
				value.SetMapIndex(key, rsTake(in, wanted.Elem()))
			}
			return value
		}
	}
	panic(fmt.Sprintf("a value tagged %q where the function's type is %v", tag, wanted))
}

// rsArg is the next argument of a call, as its parameter's type T.
func rsArg[T any](in *bufio.Reader) T {
	var value T
	reflect.ValueOf(&value).Elem().Set(rsTake(in, reflect.TypeOf(&value).Elem()))
	return value
}

// rsMoveStdout keeps fd 1 for the replies; what the program prints goes to stderr from then on.
func rsMoveStdout() *os.File {
	replies, err := syscall.Dup(1)
	if err == nil {
		err = syscall.Dup3(2, 1, 0)
	}
	if err != nil {
		panic(err)
	}
	return os.NewFile(uintptr(replies), "replies")
}
