// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Fuzzes DDP/RDMAP over SCTP (draft-ietf-rddp-sctp-00): arbitrary bytes cut
// into DATA chunk payloads (PPID, length, bytes) are parsed, ordered by
// DDP-SSN and checked against the session sequences of §3. Invariants:
// nothing is read past a chunk (ASan, each chunk in its own allocation), an
// accepted chunk re-encodes to its bytes, the window delivers each DDP-SSN
// once and strictly in order (§7), a refused event changes no state, and
// setup (rddp_sctp_setup_rx()) asks each side only what it may do.
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

extern "C" {
#include <rddp/rdmap.h>
#include <rddp/sctp.h>
}

namespace {

// An accepted chunk is exactly what the builders make of its fields.
void CheckReencodes(uint32_t ppid, const uint8_t* buf, uint32_t len, const rddp_sctp_chunk& c) {
  std::vector<uint8_t> again(len > RDDP_SCTP_SEG_PREFIX_MAX ? len : RDDP_SCTP_SEG_PREFIX_MAX);
  if (ppid == RDDP_SCTP_PPID_SEGMENT) {
    if (c.ddp != buf + 2 || c.ddp_len != len - 2 || c.ddp_len < c.hdr_len || c.pd) abort();
    if (c.hdr_len != ((c.ddp[0] & 0x80) ? RDDP_DDP_TAGGED_HDR_LEN : RDDP_DDP_UNTAGGED_HDR_LEN))
      abort();
    const int n = rddp_sctp_seg_build(c.ssn, c.ddp, c.hdr_len, c.ddp_len - c.hdr_len, again.data());
    if (n != 2 + c.hdr_len || memcmp(again.data(), buf, static_cast<size_t>(n)) != 0) abort();
    rddp_hdr h{};
    const rddp_err e = rddp_hdr_parse(c.ddp, c.hdr_len, c.ddp_len - c.hdr_len, &h);
    if (e >= RDDP_ERR_MAX) abort();
    return;
  }
  if (c.msg < RDDP_SCTP_FC_NEGOTIATE || c.msg >= RDDP_SCTP_FC_MAX || c.ddp) abort();
  if (c.pd_len != len - RDDP_SCTP_CTRL_HDR_LEN || (c.pd_len && c.pd != buf + 4)) abort();
  const int n = rddp_sctp_ctrl_build(c.ssn, c.msg, c.pd, c.pd_len, again.data(),
                                     static_cast<uint32_t>(again.size()));
  if (n != static_cast<int>(len) || memcmp(again.data(), buf, len) != 0) abort();
  // rddp's IRD/ORD prefix (wire-sctp.md): one accepted re-encodes to its bytes.
  if (c.msg != RDDP_SCTP_FC_INITIATE && c.msg != RDDP_SCTP_FC_ACCEPT) return;
  rddp_sctp_conn conn{};
  if (rddp_sctp_conn_parse(c.pd, c.pd_len, &conn) != RDDP_SCTP_OK) return;
  // §2.2.3: zero-length private data, rddp's defaults and no ULP data.
  if (!c.pd_len) {
    if (conn.ird != RDDP_SCTP_IRD_ORD_DEFAULT || conn.ord != RDDP_SCTP_IRD_ORD_DEFAULT ||
        conn.ulp || conn.ulp_len)
      abort();
    return;
  }
  if (conn.ird > RDDP_SCTP_IRD_ORD_MAX || conn.ord > RDDP_SCTP_IRD_ORD_MAX ||
      conn.ulp_len + RDDP_SCTP_IRD_ORD_LEN != c.pd_len || conn.ulp_len > RDDP_SCTP_ULP_PD_MAX)
    abort();
  std::vector<uint8_t> pd(c.pd_len);
  if (rddp_sctp_conn_build(conn.ird, conn.ord, conn.ulp, conn.ulp_len, pd.data(), c.pd_len) !=
          static_cast<int>(c.pd_len) ||
      memcmp(pd.data(), c.pd, c.pd_len) != 0)
    abort();
}

}  // namespace

// Input: the window's first expected DDP-SSN (2 octets, so that inputs
// reach the wrap after 65535), then records of [ppid selector][length hi]
// [length lo][bytes...]; a selector's low bits pick PPID 1, 2 or a raw one;
// its 0x80 bit sends the DDP-SSN to the window even when the chunk is
// refused.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Static: a fresh 4 KiB window and 136 KiB of reference per input would
  // cost more than the parsing. Every msg_of[] entry read was written first.
  static rddp_sctp_ssn_rx window;
  static uint16_t msg_of[65536];
  static std::bitset<65536> held_ref;  // what the window must be holding
  rddp_sctp_ssn_rx* const rx = &window;
  if (size < 2) return 0;
  rddp_sctp_ssn_rx_init(rx);
  rx->next = static_cast<uint16_t>((data[0] << 8) | data[1]);
  held_ref.reset();
  rddp_sctp_sess sess{};
  rddp_sctp_sess_init(&sess);
  uint16_t expect = rx->next;

  // A session event: a refused one changes nothing (§3.1).
  const auto step = [&](bool tx, uint16_t msg) {
    const rddp_sctp_sess before = sess;
    const int r = tx ? rddp_sctp_sess_tx(&sess, msg) : rddp_sctp_sess_rx(&sess, msg);
    if (r != RDDP_SCTP_OK && (sess.tx != before.tx || sess.rx != before.rx)) abort();
    if (r != RDDP_SCTP_OK && rddp_sctp_to_err(r) != RDDP_ERR_DDP_CATASTROPHIC) abort();
    if (sess.tx > RDDP_SCTP_PHASE_CLOSED || sess.rx > RDDP_SCTP_PHASE_CLOSED) abort();
    return r;
  };
  // The same chunks through the setup decision of a side that is active
  // when the first DDP-SSN is odd (§3.2-§3.5): a refused message changes
  // nothing; setup ends at its first outcome, then our Terminate (§3.1).
  rddp_sctp_sess setup{};
  rddp_sctp_sess_init(&setup);
  const bool active = (rx->next & 1) != 0;
  bool set_up = false;
  if (active) rddp_sctp_sess_tx(&setup, RDDP_SCTP_FC_INITIATE);
  const auto setup_step = [&](uint16_t msg) {
    if (set_up) return;
    const rddp_sctp_sess before = setup;
    const int r = rddp_sctp_setup_rx(&setup, active, msg);
    if (r < 0) {
      if (-r <= RDDP_SCTP_HELD || -r >= RDDP_SCTP_ERR_MAX) abort();
      if (setup.tx != before.tx || setup.rx != before.rx) abort();
      if (rddp_sctp_sess_end(&setup) != RDDP_SCTP_OK) abort();  // §3.1
      set_up = true;
      return;
    }
    switch (r) {
      case RDDP_SCTP_SETUP_NONE:
        if (!active || msg != RDDP_SCTP_FC_NEGOTIATE) abort();
        break;
      case RDDP_SCTP_SETUP_NEGOTIATE:
        if (active || msg != RDDP_SCTP_FC_NEGOTIATE) abort();
        if (rddp_sctp_sess_tx(&setup, RDDP_SCTP_FC_NEGOTIATE) != RDDP_SCTP_OK) abort();
        break;
      case RDDP_SCTP_SETUP_REQUEST:
        if (active || msg != RDDP_SCTP_FC_INITIATE) abort();
        if (rddp_sctp_sess_tx(&setup, RDDP_SCTP_FC_ACCEPT) != RDDP_SCTP_OK) abort();
        set_up = true;
        break;
      case RDDP_SCTP_SETUP_ACCEPTED:
      case RDDP_SCTP_SETUP_BOTH_ACTIVE:
      case RDDP_SCTP_SETUP_REJECTED:
        if (!active) abort();
        // Up (or answered): our Initiate went first, our Segments may follow.
        if (r != RDDP_SCTP_SETUP_REJECTED &&
            rddp_sctp_sess_tx(&setup, RDDP_SCTP_MSG_SEGMENT) != RDDP_SCTP_OK)
          abort();
        set_up = true;
        break;
      default:
        abort();
    }
  };
  // Strictly in DDP-SSN order, each once (§7); a passive side accepts (§3.2).
  const auto deliver = [&](uint16_t ssn) {
    if (ssn != expect) abort();
    expect++;
    held_ref[ssn] = false;
    setup_step(msg_of[ssn]);
    if (step(false, msg_of[ssn]) == RDDP_SCTP_OK && msg_of[ssn] == RDDP_SCTP_FC_INITIATE)
      step(true, RDDP_SCTP_FC_ACCEPT);
  };

  size_t off = 2;
  while (size - off >= 3) {
    const uint8_t sel = data[off];
    const uint32_t want = (static_cast<uint32_t>(data[off + 1]) << 8) | data[off + 2];
    off += 3;
    const uint32_t len = static_cast<uint32_t>(want < size - off ? want : size - off);
    const uint32_t ppid = (sel & 3) == 3 ? sel : (sel & 3);
    // Exactly `len` bytes of heap, so ASan sees a read past the chunk.
    std::unique_ptr<uint8_t[]> chunk(new uint8_t[len ? len : 1]);
    memcpy(chunk.get(), data + off, len);
    off += len;

    rddp_sctp_chunk c{};
    const int r = rddp_sctp_chunk_parse(ppid, chunk.get(), len, &c);
    if (r < 0 || r >= RDDP_SCTP_ERR_MAX || rddp_sctp_err_names[r] == nullptr) abort();
    if (r == RDDP_SCTP_OK) CheckReencodes(ppid, chunk.get(), len, c);
    if (r != RDDP_SCTP_OK && !(sel & 0x80)) continue;
    if (r != RDDP_SCTP_OK) c.ssn = static_cast<uint16_t>(len * 257 + sel);

    const uint16_t next = rx->next;
    const uint16_t held = rx->nr_held;
    const int a = rddp_sctp_ssn_rx_arrive(rx, c.ssn);
    const auto ahead = static_cast<uint16_t>(c.ssn - next);
    switch (a) {
      case RDDP_SCTP_OK:
        if (ahead != 0 || held_ref[c.ssn] || rx->nr_held != held) abort();
        msg_of[c.ssn] = c.msg;
        deliver(c.ssn);
        break;
      case RDDP_SCTP_HELD:
        if (ahead == 0 || ahead >= RDDP_SCTP_SSN_INFLIGHT_MAX || rx->nr_held != held + 1) abort();
        if (held_ref[c.ssn]) abort();
        held_ref[c.ssn] = true;
        msg_of[c.ssn] = c.msg;
        break;
      case RDDP_SCTP_ERR_SSN_DUP:
      case RDDP_SCTP_ERR_SSN_OLD:
      case RDDP_SCTP_ERR_SSN_BEYOND:
        if (rx->next != next || rx->nr_held != held) abort();
        if ((a == RDDP_SCTP_ERR_SSN_DUP) != (ahead < 32768 && held_ref[c.ssn])) abort();
        if (a == RDDP_SCTP_ERR_SSN_BEYOND && ahead != RDDP_SCTP_SSN_INFLIGHT_MAX) abort();
        if (a == RDDP_SCTP_ERR_SSN_OLD && ahead < 32768) abort();
        break;
      default:
        abort();
    }
    uint16_t s = 0;
    while (rddp_sctp_ssn_rx_pop(rx, &s)) {
      if (!held_ref[s]) abort();
      deliver(s);
    }
    if (rx->next != expect) abort();
    if (rx->nr_held >= RDDP_SCTP_SSN_INFLIGHT_MAX || rx->nr_held != held_ref.count()) abort();
  }
  return 0;
}
