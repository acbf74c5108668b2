package zmqrpc

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// libzmqClient is a REQ client on the system's libzmq (monerod's own
// dependency), through Python's ctypes: the library monero-lws speaks
// through. It sends each argument as one request and prints each answer
// on a line.
const libzmqClient = `
import ctypes, sys
z = ctypes.CDLL("libzmq.so.5")
z.zmq_ctx_new.restype = ctypes.c_void_p
z.zmq_socket.restype = ctypes.c_void_p
z.zmq_socket.argtypes = [ctypes.c_void_p, ctypes.c_int]
z.zmq_connect.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
z.zmq_send.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
z.zmq_recv.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
z.zmq_setsockopt.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
ctx = z.zmq_ctx_new()
s = z.zmq_socket(ctx, 3)  # ZMQ_REQ
t = ctypes.c_int(10000)
z.zmq_setsockopt(s, 27, ctypes.byref(t), 4)  # ZMQ_RCVTIMEO
assert z.zmq_connect(s, sys.argv[1].encode()) == 0
buf = ctypes.create_string_buffer(1 << 20)
for req in sys.argv[2:]:
    b = req.encode()
    assert z.zmq_send(s, b, len(b), 0) == len(b)
    n = z.zmq_recv(s, buf, len(buf), 0)
    assert n >= 0, "no answer"
    print(buf.raw[:n].decode())
`

func TestLibzmqClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	if err := exec.Command(py, "-c", `import ctypes; ctypes.CDLL("libzmq.so.5")`).Run(); err != nil {
		t.Skip("needs libzmq.so.5")
	}
	s := startLocal(t)
	script := t.TempDir() + "/client.py"
	if err := os.WriteFile(script, []byte(libzmqClient), 0o600); err != nil {
		t.Fatal(err)
	}
	reqs := []string{heightReq, `{"jsonrpc":"2.0","id":"x","method":"nope","params":{}}`, `not json`}
	out, err := exec.Command(py, append([]string{script, "tcp://" + s.Addr().String()}, reqs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"rpc_version":131072,"height":1}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":1,"error_str":"Invalid request type","message":"\"nope\" is not a valid request."}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"error_str":"Malformed json","message":"Failed to parse the json request"}}`,
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("libzmq client got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
