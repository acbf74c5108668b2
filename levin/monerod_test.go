package levin_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"net"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// TestMonerodP2P talks to a real monerod (regtest, empty chain, loopback
// only) on its P2P port with levin and portable: handshake, ping, support
// flags, timed sync, noise and an unknown command. Every body monerod sends
// must decode, load, and re-encode to exactly the bytes monerod sent, which
// checks field names, types, order and omission rules against monerod
// itself.
func TestMonerodP2P(t *testing.T) {
	lab := monerodlab.Require(t)
	// --online: --offline would stop monerod listening for peers; the
	// exclusive node (nothing listens there) keeps it from dialling out.
	m := lab.StartMonerod(t, "", "--online", "--add-exclusive-node", "127.0.0.1:1")

	var info struct {
		Height       uint64 `json:"height"`
		TopBlockHash string `json:"top_block_hash"`
	}
	if err := m.Call("get_info", nil, &info); err != nil {
		t.Fatal(err)
	}
	var top [32]byte
	if b, err := hex.DecodeString(info.TopBlockHash); err != nil || len(b) != 32 {
		t.Fatalf("top_block_hash %q", info.TopBlockHash)
	} else {
		copy(top[:], b)
	}

	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(m.P2PPort), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	rd := levin.NewReader(bufio.NewReader(conn), levin.MaxPacketSizeBeforeHandshake)

	sync := portable.CoreSyncData{CurrentHeight: info.Height, CumulativeDifficulty: info.Height, TopID: top, TopVersion: 1}
	hs := portable.HandshakeRequest{
		NodeData: portable.NodeData{
			NetworkID:    [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x10},
			PeerID:       0x1122334455667788,
			SupportFlags: portable.SupportFlagFluffyBlocks,
			// MyPort 0: no ping-back connection.
		},
		PayloadData: sync,
	}

	// invoke sends a request and returns the response, answering or
	// dropping whatever monerod sends in between (docs/p2p-levin.md §6.1: a 1007 invoke or a
	// 2010 notification may come first).
	invoke := func(command uint32, req interface{ ToSection() portable.Section }) levin.Message {
		t.Helper()
		body, err := portable.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := levin.WriteMessage(conn, levin.Message{Kind: levin.KindRequest, Command: command, Body: body}); err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := rd.ReadMessage()
			if err != nil {
				t.Fatalf("waiting for the %d response: %v", command, err)
			}
			switch msg.Kind {
			case levin.KindResponse:
				if msg.Command != command {
					t.Fatalf("response to %d while waiting for %d", msg.Command, command)
				}
				return msg
			case levin.KindRequest:
				checkCanonical(t, msg.Body)
				if msg.Command != levin.CommandRequestSupportFlags {
					t.Fatalf("unexpected invoke %d", msg.Command)
				}
				resp, _ := portable.Marshal(portable.SupportFlagsResponse{SupportFlags: 1})
				levin.WriteMessage(conn, levin.Message{Kind: levin.KindResponse, Command: msg.Command, ReturnCode: levin.ReturnSuccess, Body: resp})
			case levin.KindNotification:
				t.Logf("notification %d (%d bytes) while waiting", msg.Command, len(msg.Body))
				if len(msg.Body) > 0 {
					checkCanonical(t, msg.Body)
				}
			}
		}
	}

	// 1001 handshake.
	msg := invoke(levin.CommandHandshake, hs)
	rd.Limit = levin.MaxPacketSize
	if msg.ReturnCode != levin.ReturnSuccess {
		t.Fatalf("handshake return code %d", msg.ReturnCode)
	}
	var hsResp portable.HandshakeResponse
	loadExact(t, msg.Body, &hsResp)
	if hsResp.NodeData.NetworkID != hs.NodeData.NetworkID || hsResp.PayloadData.TopID != top ||
		hsResp.PayloadData.CurrentHeight != info.Height || hsResp.NodeData.SupportFlags != portable.SupportFlagFluffyBlocks {
		t.Errorf("handshake response %+v", hsResp)
	}
	t.Logf("handshake response: %d bytes, %+v", len(msg.Body), hsResp)

	// 1003 ping: status OK and the peer ID of the handshake.
	msg = invoke(levin.CommandPing, portable.PingRequest{})
	var ping portable.PingResponse
	loadExact(t, msg.Body, &ping)
	if msg.ReturnCode != levin.ReturnSuccess || ping.Status != portable.PingStatusOK || ping.PeerID != hsResp.NodeData.PeerID {
		t.Errorf("ping: rc %d %+v", msg.ReturnCode, ping)
	}

	// Noise is discarded by monerod: the next invoke is answered normally.
	noise := levin.Header{BodySize: 3072 - levin.HeaderSize, Flags: levin.FlagBegin | levin.FlagEnd, ProtocolVersion: 1}.Encode()
	if _, err := conn.Write(append(noise[:], make([]byte, 3072-levin.HeaderSize)...)); err != nil {
		t.Fatal(err)
	}

	// 1007 support flags.
	msg = invoke(levin.CommandRequestSupportFlags, portable.SupportFlagsRequest{})
	var flags portable.SupportFlagsResponse
	loadExact(t, msg.Body, &flags)
	if flags.SupportFlags != portable.SupportFlagFluffyBlocks {
		t.Errorf("support flags %+v", flags)
	}

	// 1002 timed sync.
	msg = invoke(levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: sync})
	var ts portable.TimedSyncResponse
	loadExact(t, msg.Body, &ts)
	if !reflect.DeepEqual(ts.PayloadData, hsResp.PayloadData) {
		t.Errorf("timed sync %+v", ts)
	}

	// An invoke of a command v0.18 does not have: -6 with an empty body.
	msg = invoke(1005, portable.PingRequest{})
	if msg.ReturnCode != levin.ReturnErrHandlerNotDefined || len(msg.Body) != 0 {
		t.Errorf("unknown command: rc %d, %d body bytes", msg.ReturnCode, len(msg.Body))
	}
}

// loadExact loads a body into p and checks that both the generic tree and
// the struct re-encode to exactly monerod's bytes.
func loadExact(t *testing.T, body []byte, p interface {
	ToSection() portable.Section
	FromSection(portable.Section) error
}) {
	t.Helper()
	checkCanonical(t, body)
	if err := portable.Unmarshal(body, p); err != nil {
		t.Fatalf("%T: %v", p, err)
	}
	again, err := portable.Marshal(p)
	if err != nil || !bytes.Equal(again, body) {
		t.Fatalf("%T re-marshalled differs from monerod's body:\n% x\n% x", p, again, body)
	}
}

func checkCanonical(t *testing.T, body []byte) {
	t.Helper()
	s, err := portable.Decode(body)
	if err != nil {
		t.Fatalf("monerod body does not decode: %v\n% x", err, body)
	}
	again, err := portable.Encode(s)
	if err != nil || !bytes.Equal(again, body) {
		t.Fatalf("re-encoding differs from monerod's body:\n% x\n% x", again, body)
	}
}
