// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's output (userspace/rddpctl/format.h): the human text exactly,
// and the JSON through a real parser (nlohmann::json) for its types and
// keys. Inputs come from the decoders fed with rddp.ko-shaped messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decode.h"
#include "format.h"
#include "rddpctl_messages.h"

namespace rddpctl {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::DeviceMessage;
using testing::GenlMessage;
using testing::PutSockaddr4;
using testing::PutSockaddr6;
using testing::PutTerminate;
using testing::PutU64;

constexpr Options kHuman{};
constexpr Options kDetails{.details = true};
constexpr Options kJson{.json = true};
constexpr Options kJsonDetails{.json = true, .details = true};
constexpr Options kJsonPretty{.json = true, .pretty = true};

Device DecodedDevice(const char* name, uint32_t index, uint64_t counter_base) {
  NlMsgPtr msg = DeviceMessage(name, index, counter_base);
  std::optional<Device> d = DecodeDevice(nlmsg_hdr(msg.get()));
  EXPECT_TRUE(d);
  return d.value_or(Device{});
}

// Every counter zero except those named.
Device DeviceWithCounters(const char* name,
                          const std::vector<std::pair<std::string_view, uint64_t>>& set) {
  Device d = DecodedDevice(name, 0, 0);
  for (Counter& c : d.counters) {
    for (const auto& [n, v] : set) {
      if (c.name == n) c.value = v;
    }
  }
  return d;
}

json Parse(const std::string& text) {
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  return json::parse(text);  // throws, failing the test, on invalid JSON
}

TEST(RddpctlFormat, DevShowLine) {
  // The line tests/vm/rddpctl.sh matches.
  Device d = DecodedDevice("rddp0", 0, 0);
  d.qps = 0;
  EXPECT_EQ(FormatDevices({d}, kHuman),
            "0: rddp0: netdev dummy0 port ACTIVE qps 0 crc on markers off mpa-rev 2 tx-batch on "
            "tx-zcopy on peer-timeout-ms 60000 transport tcp multihome off\n");
  d.settings.tx_zcopy = false;
  d.settings.peer_timeout_ms = 0;
  d.settings.transport = RDDP_TRANSPORT_SCTP;
  d.settings.multihome = true;
  EXPECT_EQ(FormatDevices({d}, kHuman),
            "0: rddp0: netdev dummy0 port ACTIVE qps 0 crc on markers off mpa-rev 2 tx-batch on "
            "tx-zcopy off peer-timeout-ms 0 transport sctp multihome on\n");
  EXPECT_EQ(FormatDevices({}, kHuman), "");
}

TEST(RddpctlFormat, DevShowMissingFields) {
  Device d;
  d.name = "rddp3";
  d.settings.markers = true;
  EXPECT_EQ(FormatDevices({d}, kHuman),
            "-: rddp3: netdev - port - qps - crc - markers on mpa-rev - tx-batch - tx-zcopy - "
            "peer-timeout-ms - transport - multihome -\n");
  d.port_state = 9;  // a state this rddpctl does not know
  EXPECT_NE(FormatDevices({d}, kHuman).find(" port 9 "), std::string::npos);
}

TEST(RddpctlFormat, DevShowDetails) {
  Device d = DecodedDevice("rddp0", 1, 1);
  EXPECT_EQ(FormatDevices({d}, kDetails),
            "1: rddp0: netdev dummy0 port ACTIVE qps 3 crc on markers off mpa-rev 2 tx-batch on "
            "tx-zcopy on peer-timeout-ms 60000 transport tcp multihome off\n"
            "    tx_fpdus 1 tx_bytes 2 rx_fpdus 3 rx_bytes 4\n"
            "    rx_crc_errors 5 rx_marker_errors 6 rx_framing_errors 7\n"
            "    term_tx_rdmap 8 term_tx_ddp 9 term_tx_mpa 10 term_rx_rdmap 11 term_rx_ddp 12 "
            "term_rx_mpa 13\n"
            "    conn_attempts 14 conn_established 15 conn_requests 16 conn_accepts 17 "
            "conn_rejects 18 conn_failures 19 mpa_timeouts 20\n"
            "    tx_zcopy_bytes 21\n"
            "    mr_fast_regs 22 mr_local_invals 23 mr_remote_invals 24\n"
            "    sctp_tx_chunks 25 sctp_rx_chunks 26 sctp_rx_held 27 sctp_rx_placed_early 28 "
            "sctp_resegments 29\n"
            "    tx_batches 30 tx_far_kicks 31\n");
}

TEST(RddpctlFormat, DevShowJson) {
  std::vector<Device> devs = {DecodedDevice("rddp0", 0, 0), DecodedDevice("rddp1", 1, 5)};
  json j = Parse(FormatDevices(devs, kJson));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2U);
  const json& d = j[1];
  EXPECT_EQ(d["name"], "rddp1");
  EXPECT_EQ(d["index"], 1);
  EXPECT_EQ(d["netdev"], "dummy0");
  EXPECT_EQ(d["netdev_index"], 7);
  EXPECT_EQ(d["port_state"], "ACTIVE");
  EXPECT_EQ(d["qps"], 3);
  EXPECT_TRUE(d["crc"].is_boolean());
  EXPECT_EQ(d["crc"], true);
  EXPECT_EQ(d["markers"], false);
  EXPECT_TRUE(d["mpa_rev"].is_number_unsigned());
  EXPECT_EQ(d["mpa_rev"], 2);
  EXPECT_EQ(d["tx_batch"], true);
  EXPECT_TRUE(d["tx_zcopy"].is_boolean());
  EXPECT_EQ(d["tx_zcopy"], true);
  EXPECT_TRUE(d["peer_timeout_ms"].is_number_unsigned());
  EXPECT_EQ(d["peer_timeout_ms"], 60000);
  EXPECT_EQ(d["transport"], "tcp");
  EXPECT_TRUE(d["multihome"].is_boolean());
  EXPECT_EQ(d["multihome"], false);
  EXPECT_FALSE(d.contains("stats"));  // counters only with -s
  // Who named a device: only where the kernel says (Linux 6.11 and later).
  EXPECT_FALSE(d.contains("name_assign_type"));
  devs[0].name_assign_type = 1;
  devs[1].name_assign_type = 7;
  j = Parse(FormatDevices(devs, kJson));
  EXPECT_EQ(j[0]["name_assign_type"], "user");
  EXPECT_EQ(j[1]["name_assign_type"], "7");

  j = Parse(FormatDevices(devs, kJsonDetails));
  ASSERT_TRUE(j[1]["stats"].is_object());
  EXPECT_EQ(j[1]["stats"].size(), 31U);
  EXPECT_EQ(j[1]["stats"]["sctp_rx_held"], 135);
  EXPECT_EQ(j[1]["stats"]["sctp_rx_placed_early"], 140);
  EXPECT_EQ(j[1]["stats"]["tx_fpdus"], 5);
  EXPECT_EQ(j[1]["stats"]["mpa_timeouts"], 100);
  EXPECT_EQ(j[0]["stats"]["tx_fpdus"], 0);

  EXPECT_EQ(Parse(FormatDevices({}, kJson)), json::array());
}

TEST(RddpctlFormat, DevShowJsonOmitsMissingFields) {
  Device d;
  d.name = "rddp3";
  json j = Parse(FormatDevices({d}, kJsonDetails));
  EXPECT_EQ(j[0], (json{{"name", "rddp3"}, {"stats", json::object()}}));
}

TEST(RddpctlFormat, PrettyJsonIsTheSameDocument) {
  std::vector<Device> devs = {DecodedDevice("rddp0", 0, 3)};
  const std::string compact = FormatDevices(devs, kJsonDetails);
  const std::string pretty = FormatDevices(devs, {.json = true, .pretty = true, .details = true});
  EXPECT_EQ(Parse(compact), Parse(pretty));
  EXPECT_EQ(compact.find('\n'), compact.size() - 1);  // one line
  EXPECT_NE(pretty.find("[\n  {\n    \"index\": 0,\n    \"name\": \"rddp0\","), std::string::npos)
      << pretty;
}

Qp ConnectedQp() {
  Qp q;
  q.dev = "rddp0";
  q.num = 17;
  q.state = 3;
  q.connected = true;
  q.local = Endpoint{"198.51.100.1", 7174, false};
  q.remote = Endpoint{"198.51.100.1", 40000, false};
  q.mpa_rev = 2;
  q.crc = true;
  q.markers_tx = false;
  q.markers_rx = false;
  q.ird = 16;
  q.ord = 8;
  q.rtr = 1;
  q.mulpdu = 1424;
  q.tx_fpdus = 10;
  q.tx_bytes = 20640;
  q.rx_fpdus = 9;
  q.rx_bytes = 123;
  q.transport = RDDP_TRANSPORT_TCP;
  return q;
}

TEST(RddpctlFormat, QpTable) {
  Qp idle;
  idle.dev = "rddp1";
  idle.num = 2;
  idle.state = 0;
  EXPECT_EQ(FormatQps({ConnectedQp(), idle}, kHuman),
            "DEV    QPN  STATE  LOCAL              REMOTE              MPA  CRC  MARKERS  "
            "IRD/ORD  RTR    TRANSPORT\n"
            "rddp0  17   RTS    198.51.100.1:7174  198.51.100.1:40000  2    on   off/off  "
            "16/8     write  tcp\n"
            "rddp1  2    RESET  -                  -                   -    -    -        "
            "-        -      -\n");
  EXPECT_EQ(FormatQps({}, kHuman), "");
}

TEST(RddpctlFormat, QpTableMatchesTheVmTest) {
  // tests/vm/rddpctl.sh: 'rddp0 +[0-9]+ +RTS +198\.51\.100\.1:[0-9]+ +198\.51\.100\.1:[0-9]+ +2 +on
  // +off'
  const std::string out = FormatQps({ConnectedQp()}, kHuman);
  EXPECT_NE(out.find("rddp0  17   RTS    198.51.100.1:7174  198.51.100.1:40000  2    on   off"),
            std::string::npos);
}

TEST(RddpctlFormat, QpWithoutAddresses) {
  // What a caller without CAP_NET_ADMIN gets (kmod/genl.c, QP_GET): a
  // connected QP without RDDP_A_QP_LOCAL_ADDR and RDDP_A_QP_REMOTE_ADDR.
  Qp q = ConnectedQp();
  q.local.reset();
  q.remote.reset();
  EXPECT_EQ(FormatQps({q}, kHuman),
            "DEV    QPN  STATE  LOCAL  REMOTE  MPA  CRC  MARKERS  IRD/ORD  RTR    TRANSPORT\n"
            "rddp0  17   RTS    -      -       2    on   off/off  16/8     write  tcp\n");
  json j = Parse(FormatQps({q}, kJson));
  ASSERT_EQ(j.size(), 1U);
  EXPECT_EQ(j[0]["connected"], true);
  EXPECT_EQ(j[0]["mpa_rev"], 2);
  for (const char* key : {"local_addr", "local_port", "remote_addr", "remote_port"})
    EXPECT_FALSE(j[0].contains(key)) << key;
}

TEST(RddpctlFormat, QpTableDetails) {
  Qp q = ConnectedQp();
  q.local = Endpoint{"2001:db8::1", 7174, true};
  q.remote = Endpoint{"2001:db8::2", 5000, true};
  q.markers_rx = true;
  q.state = 6;
  q.error = "terminated by the peer";
  q.term_rx = Terminate{1, 1, 0x02};
  const std::string out = FormatQps({q}, kDetails);
  EXPECT_EQ(out,
            "DEV    QPN  STATE  LOCAL               REMOTE              MPA  CRC  MARKERS  "
            "IRD/ORD  RTR    TRANSPORT  MULPDU  TX_FPDUS  TX_BYTES  RX_FPDUS  RX_BYTES  TX_SSN  "
            "RX_SSN  TERM_TX  TERM_RX       ERROR\n"
            "rddp0  17   ERR    [2001:db8::1]:7174  [2001:db8::2]:5000  2    on   off/on   "
            "16/8     write  tcp        1424    10        20640     9         123       -       "
            "-       -        DDP/0x1/0x02  terminated by the peer\n");
}

TEST(RddpctlFormat, QpTableSctp) {
  // An SCTP stream adds its next DDP-SSN each way (kmod/genl.c).
  Qp q = ConnectedQp();
  q.local.reset();
  q.remote.reset();
  q.transport = RDDP_TRANSPORT_SCTP;
  q.tx_ssn = 65535;
  q.rx_ssn = 0;
  EXPECT_EQ(FormatQps({q}, kDetails),
            "DEV    QPN  STATE  LOCAL  REMOTE  MPA  CRC  MARKERS  IRD/ORD  RTR    TRANSPORT  "
            "MULPDU  TX_FPDUS  TX_BYTES  RX_FPDUS  RX_BYTES  TX_SSN  RX_SSN  TERM_TX  TERM_RX  "
            "ERROR\n"
            "rddp0  17   RTS    -      -       -    -    -        16/8     write  sctp       "
            "1424    10        20640     9         123       65535   0       -        -        "
            "-\n");
  json j = Parse(FormatQps({q}, kJson));
  ASSERT_EQ(j.size(), 1U);
  EXPECT_EQ(j[0]["transport"], "sctp");
  EXPECT_EQ(j[0]["tx_ssn"], 65535);
  EXPECT_EQ(j[0]["rx_ssn"], 0);
  // No MPA layer under SCTP: its parameters are not shown.
  EXPECT_FALSE(j[0].contains("mpa_rev"));
  EXPECT_FALSE(j[0].contains("crc"));
  EXPECT_FALSE(j[0].contains("markers_tx"));
}

TEST(RddpctlFormat, QpJson) {
  Qp q = ConnectedQp();
  q.term_tx = Terminate{2, 0, 0x01};
  q.error = "MPA: CRC error";
  Qp idle;
  idle.dev = "rddp0";
  idle.num = 1;
  idle.state = 1;
  json j = Parse(FormatQps({q, idle}, kJson));
  ASSERT_EQ(j.size(), 2U);
  const json& c = j[0];
  EXPECT_EQ(c["dev"], "rddp0");
  EXPECT_EQ(c["qpn"], 17);
  EXPECT_EQ(c["state"], "RTS");
  EXPECT_EQ(c["connected"], true);
  EXPECT_EQ(c["local_addr"], "198.51.100.1");
  EXPECT_EQ(c["local_port"], 7174);
  EXPECT_EQ(c["remote_addr"], "198.51.100.1");
  EXPECT_EQ(c["remote_port"], 40000);
  EXPECT_EQ(c["mpa_rev"], 2);
  EXPECT_EQ(c["crc"], true);
  EXPECT_EQ(c["markers_tx"], false);
  EXPECT_EQ(c["markers_rx"], false);
  EXPECT_EQ(c["ird"], 16);
  EXPECT_EQ(c["ord"], 8);
  EXPECT_EQ(c["rtr"], "write");
  EXPECT_EQ(c["mulpdu"], 1424);
  EXPECT_EQ(c["tx_fpdus"], 10);
  EXPECT_EQ(c["tx_bytes"], 20640);
  EXPECT_EQ(c["rx_fpdus"], 9);
  EXPECT_EQ(c["rx_bytes"], 123);
  EXPECT_EQ(c["transport"], "tcp");
  EXPECT_FALSE(c.contains("tx_ssn"));  // over TCP there is none
  EXPECT_FALSE(c.contains("rx_ssn"));
  EXPECT_EQ(c["error"], "MPA: CRC error");
  EXPECT_EQ(c["term_tx"], (json{{"layer", 2}, {"layer_name", "MPA"}, {"etype", 0}, {"ecode", 1}}));
  EXPECT_FALSE(c.contains("term_rx"));
  EXPECT_EQ(j[1], (json{{"dev", "rddp0"}, {"qpn", 1}, {"state", "INIT"}, {"connected", false}}));
}

TEST(RddpctlFormat, QpFromADecodedMessage) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  nlattr* nest = nla_nest_start(msg.get(), RDDP_A_QP);
  ASSERT_EQ(nla_put_string(msg.get(), RDDP_A_QP_DEV_NAME, "rddp0"), 0);
  ASSERT_EQ(nla_put_u32(msg.get(), RDDP_A_QP_NUM, 4), 0);
  ASSERT_EQ(nla_put_u8(msg.get(), RDDP_A_QP_STATE, 2), 0);
  ASSERT_EQ(nla_put_flag(msg.get(), RDDP_A_QP_CONNECTED), 0);
  PutSockaddr6(msg.get(), RDDP_A_QP_LOCAL_ADDR, "fe80::1", 1);
  ASSERT_EQ(nla_put_u8(msg.get(), RDDP_A_QP_RTR, 7), 0);  // unknown RTR kind
  nla_nest_end(msg.get(), nest);
  std::optional<Qp> q = DecodeQp(nlmsg_hdr(msg.get()));
  ASSERT_TRUE(q);
  EXPECT_EQ(FormatQps({*q}, kHuman),
            "DEV    QPN  STATE  LOCAL        REMOTE  MPA  CRC  MARKERS  IRD/ORD  RTR  TRANSPORT\n"
            "rddp0  4    RTR    [fe80::1]:1  -       -    -    -        -        7    -\n");
  json j = Parse(FormatQps({*q}, kJson));
  EXPECT_EQ(j[0]["rtr"], "7");
  EXPECT_EQ(j[0]["local_addr"], "fe80::1");
  EXPECT_FALSE(j[0].contains("remote_addr"));
}

TEST(RddpctlFormat, StatsNonZeroOnly) {
  Device d = DeviceWithCounters("rddp0", {{"tx_bytes", 20640}, {"conn_established", 2}});
  EXPECT_EQ(FormatStats({d}, kHuman),
            "rddp0:\n"
            "    tx_bytes              20640\n"
            "    conn_established      2\n");
  Device idle = DeviceWithCounters("rddp1", {});
  EXPECT_EQ(FormatStats({idle}, kHuman), "rddp1:\n    all counters are zero\n");
  Device none;
  none.name = "rddp2";
  EXPECT_EQ(FormatStats({none}, kHuman), "rddp2:\n    no counters\n");
}

TEST(RddpctlFormat, StatsAll) {
  const std::string out = FormatStats({DeviceWithCounters("rddp0", {{"rx_fpdus", 4}})}, kDetails);
  EXPECT_EQ(out.rfind("rddp0:\n    tx_fpdus              0\n", 0), 0U) << out;
  EXPECT_NE(out.find("    rx_fpdus              4\n"), std::string::npos);
  EXPECT_NE(out.find("    rx_framing_errors     0\n"), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 32);
  EXPECT_NE(out.find("    sctp_rx_held          0\n"), std::string::npos);
  EXPECT_NE(out.find("    sctp_rx_placed_early  0\n"), std::string::npos);
  EXPECT_NE(out.find("    sctp_resegments       0\n"), std::string::npos);
  EXPECT_NE(out.find("    tx_batches            0\n"), std::string::npos);
  EXPECT_NE(out.find("    tx_far_kicks          0\n"), std::string::npos);
}

TEST(RddpctlFormat, StatsJson) {
  std::vector<Device> devs = {DeviceWithCounters("rddp0", {{"tx_bytes", 1ULL << 50}}),
                              DeviceWithCounters("rddp1", {})};
  json j = Parse(FormatStats(devs, kJson));
  ASSERT_EQ(j.size(), 2U);
  EXPECT_EQ(j[0]["dev"], "rddp0");
  EXPECT_EQ(j[0].size(), 32U);  // dev and every counter, zero or not
  EXPECT_EQ(j[0]["tx_bytes"].get<uint64_t>(), 1ULL << 50);
  EXPECT_EQ(j[1]["conn_failures"], 0);
  for (const auto& [key, value] : j[1].items()) {
    if (key != "dev") {
      EXPECT_TRUE(value.is_number_unsigned()) << key;
    }
  }
}

TEST(RddpctlFormat, Rates) {
  Device before = DeviceWithCounters("rddp0", {{"tx_bytes", 1000}, {"rx_bytes", 50}});
  Device after =
      DeviceWithCounters("rddp0", {{"tx_bytes", 3000}, {"rx_bytes", 50}, {"tx_fpdus", 3}});
  EXPECT_EQ(FormatRates({before}, {after}, milliseconds(2000), kHuman),
            "rddp0: tx_fpdus/s 2 tx_bytes/s 1000\n");  // 3 FPDUs in 2 s round to 2
  EXPECT_EQ(FormatRates({after}, {after}, milliseconds(1000), kHuman), "rddp0: idle\n");
  const std::string all = FormatRates({before}, {after}, milliseconds(1000), kDetails);
  EXPECT_NE(all.find("rddp0: tx_fpdus/s 3 tx_bytes/s 2000 rx_fpdus/s 0 rx_bytes/s 0 "),
            std::string::npos);
}

TEST(RddpctlFormat, RatesAcrossAResetAndANewDevice) {
  Device before = DeviceWithCounters("rddp0", {{"tx_bytes", 5000}});
  Device after = DeviceWithCounters("rddp0", {{"tx_bytes", 700}});  // reset in between
  Device fresh = DeviceWithCounters("rddp1", {{"tx_bytes", 9999}});
  EXPECT_EQ(FormatRates({before}, {after, fresh}, milliseconds(1000), kHuman),
            "rddp0: tx_bytes/s 700\nrddp1: idle\n");
  // A zero interval cannot divide by zero.
  EXPECT_EQ(FormatRates({before}, {before}, milliseconds(0), kHuman), "rddp0: idle\n");
}

TEST(RddpctlFormat, RatesJson) {
  Device before = DeviceWithCounters("rddp0", {});
  Device after = DeviceWithCounters("rddp0", {{"rx_fpdus", 50}});
  json j = Parse(FormatRates({before}, {after}, milliseconds(500), kJson));
  ASSERT_EQ(j.size(), 1U);
  EXPECT_EQ(j[0]["dev"], "rddp0");
  EXPECT_EQ(j[0]["interval_ms"], 500);
  EXPECT_EQ(j[0]["rx_fpdus_per_sec"], 100);
  EXPECT_EQ(j[0]["tx_bytes_per_sec"], 0);
  EXPECT_EQ(j[0]["sctp_rx_chunks_per_sec"], 0);
  EXPECT_EQ(j[0]["sctp_rx_placed_early_per_sec"], 0);
  EXPECT_EQ(j[0].size(), 33U);
}

Event MakeEvent(uint8_t type) {
  Event e;
  e.type = type;
  e.dev = "rddp0";
  return e;
}

TEST(RddpctlFormat, EventLines) {
  Event state = MakeEvent(RDDP_EVENT_QP_STATE);
  state.qp_num = 5;
  state.qp_state = 3;
  EXPECT_EQ(FormatEvent(state, kHuman), "qp-state rddp0 qp 5 state RTS\n");
  Event term = MakeEvent(RDDP_EVENT_TERM_TX);
  term.qp_num = 5;
  term.term = Terminate{0, 1, 0x06};
  EXPECT_EQ(FormatEvent(term, kHuman), "terminate-sent rddp0 qp 5 terminate RDMAP/0x1/0x06\n");
  term.type = RDDP_EVENT_TERM_RX;
  EXPECT_EQ(FormatEvent(term, kHuman), "terminate-received rddp0 qp 5 terminate RDMAP/0x1/0x06\n");
  Event failed = MakeEvent(RDDP_EVENT_CONN_FAILED);
  failed.error = ECONNREFUSED;
  failed.remote = Endpoint{"198.51.100.1", 1, false};
  EXPECT_EQ(FormatEvent(failed, kHuman),
            "connection-failed rddp0 remote 198.51.100.1:1 error Connection refused (111)\n");
  EXPECT_EQ(FormatEvent(MakeEvent(RDDP_EVENT_DEV_ADDED), kHuman), "device-added rddp0\n");
  EXPECT_EQ(FormatEvent(MakeEvent(RDDP_EVENT_DEV_REMOVED), kHuman), "device-removed rddp0\n");
  EXPECT_EQ(FormatEvent(MakeEvent(42), kHuman), "42 rddp0\n");
  EXPECT_EQ(FormatEvent(Event{}, kHuman), "- -\n");
}

TEST(RddpctlFormat, EventJson) {
  Event state = MakeEvent(RDDP_EVENT_QP_STATE);
  state.qp_num = 5;
  state.qp_state = 6;
  const std::string line = FormatEvent(state, kJson);
  EXPECT_EQ(line, "{\"event\":\"qp-state\",\"dev\":\"rddp0\",\"qpn\":5,\"state\":\"ERR\"}\n");
  Event failed = MakeEvent(RDDP_EVENT_CONN_FAILED);
  failed.error = ECONNREFUSED;
  failed.remote = Endpoint{"2001:db8::1", 7174, true};
  json j = Parse(FormatEvent(failed, kJson));
  EXPECT_EQ(j["event"], "connection-failed");
  EXPECT_EQ(j["errno"], 111);
  EXPECT_EQ(j["error"], "Connection refused");
  EXPECT_EQ(j["remote_addr"], "2001:db8::1");
  EXPECT_EQ(j["remote_port"], 7174);
  Event term = MakeEvent(RDDP_EVENT_TERM_RX);
  term.term = Terminate{1, std::nullopt, 3};
  j = Parse(FormatEvent(term, kJsonPretty));
  EXPECT_EQ(j["terminate"], (json{{"layer", 1}, {"layer_name", "DDP"}, {"ecode", 3}}));
}

TEST(RddpctlFormat, HostileStringsStayValidJson) {
  Device d;
  d.name = "we\"ird\\\n\t\x01name\x7f";
  d.netdev = "caf\xc3\xa9 \xff\xfe";  // UTF-8 é, then two bytes that are not UTF-8
  json j = Parse(FormatDevices({d}, kJson));
  EXPECT_EQ(j[0]["name"], *d.name);
  EXPECT_EQ(j[0]["netdev"], "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd");
  Qp q;
  q.error = std::string("nul\0inside", 10);
  j = Parse(FormatQps({q}, kJson));
  EXPECT_EQ(j[0]["error"], *q.error);
}

TEST(RddpctlFormat, Table) {
  EXPECT_EQ(FormatTable({{"A", "BB", "C"}, {"aaaa", "b", "cccccc"}}),
            "A     BB  C\n"
            "aaaa  b   cccccc\n");
  EXPECT_EQ(FormatTable({}), "");
  EXPECT_EQ(FormatTable({{"x"}, {"y", "z"}}), "x\ny  z\n");
}

TEST(RddpctlFormat, Terminate) {
  EXPECT_EQ(FormatTerminate(Terminate{1, 1, 0x02}), "DDP/0x1/0x02");
  EXPECT_EQ(FormatTerminate(Terminate{2, 0, 0xff}), "MPA/0x0/0xff");
  EXPECT_EQ(FormatTerminate(Terminate{9, 15, 0}), "9/0xf/0x00");
  EXPECT_EQ(FormatTerminate(Terminate{}), "?/?/?");
}

}  // namespace
}  // namespace rddpctl
