// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's human and JSON output (format.h).
#include "format.h"

#include <linux/rddp_netlink.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>

#include "json.h"
#include "names.h"

namespace rddpctl {

namespace {

constexpr std::string_view kMissing = "-";

std::string Text(const std::optional<std::string>& s) { return s ? *s : std::string(kMissing); }

template <std::integral T>
std::string Text(const std::optional<T>& n) {
  return n ? std::to_string(*n) : std::string(kMissing);
}

std::string OnOff(const std::optional<bool>& b) {
  if (!b) return std::string(kMissing);
  return *b ? "on" : "off";
}

// A number-valued optional through a naming function, "-" when missing.
std::string Named(const std::optional<uint8_t>& v, std::string (*name)(uint8_t)) {
  return v ? name(*v) : std::string(kMissing);
}

std::string Hex(const std::optional<uint8_t>& v, int digits) {
  if (!v) return "?";
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%0*x", digits, static_cast<unsigned>(*v));
  return buf.data();
}

// Counters of a kind share a line in `dev show -s`.
std::string_view CounterGroup(std::string_view name) {
  if (name.starts_with("term_")) return "term";
  if (name.starts_with("conn_") || name.starts_with("mpa_")) return "conn";
  if (name.ends_with("_errors")) return "errors";
  if (name.starts_with("mr_")) return "mr";
  if (name.starts_with("sctp_")) return "sctp";
  return "traffic";
}

void JsonEndpoint(JsonWriter& j, std::string_view prefix, const std::optional<Endpoint>& ep) {
  if (!ep) return;
  const std::string p(prefix);
  j.Field(p + "_addr", ep->address);
  j.Field(p + "_port", ep->port);
}

void JsonTerminate(JsonWriter& j, std::string_view key, const std::optional<Terminate>& t) {
  if (!t) return;
  j.Key(key).BeginObject();
  j.Field("layer", t->layer);
  if (t->layer) j.Field("layer_name", TermLayerName(*t->layer));
  j.Field("etype", t->etype);
  j.Field("ecode", t->ecode);
  j.EndObject();
}

std::string ErrnoText(uint32_t err) {
  return std::string(std::strerror(static_cast<int>(err))) + " (" + std::to_string(err) + ")";
}

// One JSON document per call, newline-terminated.
std::string Finish(const JsonWriter& j) { return j.str() + '\n'; }

// DDP over SCTP has no MPA layer (draft-ietf-rddp-sctp-00 §2.2: SCTP's
// own CRC32c, no markers), so a QP on it has no MPA revision, CRC or
// markers to show.
bool OverSctp(const Qp& q) { return q.transport && *q.transport == RDDP_TRANSPORT_SCTP; }

}  // namespace

std::string FormatTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); i++) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); i++) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + '\n';
  }
  return out;
}

std::string FormatTerminate(const Terminate& term) {
  const std::string layer = term.layer ? TermLayerName(*term.layer) : "?";
  return layer + "/" + Hex(term.etype, 1) + "/" + Hex(term.ecode, 2);
}

std::string FormatDevices(const std::vector<Device>& devices, const Options& options) {
  if (options.json) {
    JsonWriter j(options.pretty);
    j.BeginArray();
    for (const Device& d : devices) {
      j.BeginObject();
      j.Field("index", d.index);
      j.Field("name", d.name);
      j.Field("netdev", d.netdev);
      j.Field("netdev_index", d.netdev_index);
      if (d.port_state) j.Field("port_state", PortStateName(*d.port_state));
      j.Field("qps", d.qps);
      if (d.name_assign_type) j.Field("name_assign_type", NameAssignTypeName(*d.name_assign_type));
      j.Field("crc", d.settings.crc);
      j.Field("markers", d.settings.markers);
      j.Field("mpa_rev", d.settings.mpa_rev);
      j.Field("tx_batch", d.settings.tx_batch);
      j.Field("tx_zcopy", d.settings.tx_zcopy);
      j.Field("peer_timeout_ms", d.settings.peer_timeout_ms);
      if (d.settings.transport) j.Field("transport", TransportName(*d.settings.transport));
      j.Field("multihome", d.settings.multihome);
      if (options.details) {
        j.Key("stats").BeginObject();
        for (const Counter& c : d.counters) j.Field(c.name, c.value);
        j.EndObject();
      }
      j.EndObject();
    }
    j.EndArray();
    return Finish(j);
  }
  std::string out;
  for (const Device& d : devices) {
    const Settings& s = d.settings;
    out += Text(d.index) + ": " + Text(d.name) + ": netdev " + Text(d.netdev) + " port " +
           Named(d.port_state, PortStateName) + " qps " + Text(d.qps) + " crc " + OnOff(s.crc) +
           " markers " + OnOff(s.markers) + " mpa-rev " + Text(s.mpa_rev) + " tx-batch " +
           OnOff(s.tx_batch) + " tx-zcopy " + OnOff(s.tx_zcopy) + " peer-timeout-ms " +
           Text(s.peer_timeout_ms) + " transport " + Named(s.transport, TransportName) +
           " multihome " + OnOff(s.multihome) + '\n';
    if (!options.details) continue;
    std::string_view group;
    std::string line;
    for (const Counter& c : d.counters) {
      if (CounterGroup(c.name) != group && !line.empty()) {
        out += "    " + line + '\n';
        line.clear();
      }
      group = CounterGroup(c.name);
      line += (line.empty() ? "" : " ") + std::string(c.name) + " " + std::to_string(c.value);
    }
    if (!line.empty()) out += "    " + line + '\n';
  }
  return out;
}

std::string FormatQps(const std::vector<Qp>& qps, const Options& options) {
  if (options.json) {
    JsonWriter j(options.pretty);
    j.BeginArray();
    for (const Qp& q : qps) {
      j.BeginObject();
      j.Field("dev", q.dev);
      j.Field("qpn", q.num);
      if (q.state) j.Field("state", QpStateName(*q.state));
      j.Field("connected", q.connected);
      if (q.transport) j.Field("transport", TransportName(*q.transport));
      JsonEndpoint(j, "local", q.local);
      JsonEndpoint(j, "remote", q.remote);
      if (!OverSctp(q)) {
        j.Field("mpa_rev", q.mpa_rev);
        j.Field("crc", q.crc);
        j.Field("markers_tx", q.markers_tx);
        j.Field("markers_rx", q.markers_rx);
      }
      j.Field("ird", q.ird);
      j.Field("ord", q.ord);
      if (q.rtr) j.Field("rtr", RtrName(*q.rtr));
      j.Field("mulpdu", q.mulpdu);
      j.Field("tx_fpdus", q.tx_fpdus);
      j.Field("tx_bytes", q.tx_bytes);
      j.Field("rx_fpdus", q.rx_fpdus);
      j.Field("rx_bytes", q.rx_bytes);
      j.Field("tx_ssn", q.tx_ssn);
      j.Field("rx_ssn", q.rx_ssn);
      j.Field("error", q.error);
      JsonTerminate(j, "term_tx", q.term_tx);
      JsonTerminate(j, "term_rx", q.term_rx);
      j.EndObject();
    }
    j.EndArray();
    return Finish(j);
  }
  if (qps.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"DEV", "QPN", "STATE", "LOCAL", "REMOTE", "MPA", "CRC", "MARKERS", "IRD/ORD",
                  "RTR", "TRANSPORT"});
  if (options.details) {
    rows[0].insert(rows[0].end(), {"MULPDU", "TX_FPDUS", "TX_BYTES", "RX_FPDUS", "RX_BYTES",
                                   "TX_SSN", "RX_SSN", "TERM_TX", "TERM_RX", "ERROR"});
  }
  for (const Qp& q : qps) {
    const bool mpa = !OverSctp(q);
    std::vector<std::string> row = {
        Text(q.dev),
        Text(q.num),
        Named(q.state, QpStateName),
        q.local ? q.local->ToString() : std::string(kMissing),
        q.remote ? q.remote->ToString() : std::string(kMissing),
        mpa ? Text(q.mpa_rev) : std::string(kMissing),
        mpa ? OnOff(q.crc) : std::string(kMissing),
        // MARKERS is tx/rx: whether we insert them / the peer does.
        mpa && (q.markers_tx || q.markers_rx) ? OnOff(q.markers_tx) + "/" + OnOff(q.markers_rx)
                                              : std::string(kMissing),
        q.ird || q.ord ? Text(q.ird) + "/" + Text(q.ord) : std::string(kMissing),
        Named(q.rtr, RtrName),
        Named(q.transport, TransportName),
    };
    if (options.details) {
      row.insert(row.end(),
                 {Text(q.mulpdu), Text(q.tx_fpdus), Text(q.tx_bytes), Text(q.rx_fpdus),
                  Text(q.rx_bytes), Text(q.tx_ssn), Text(q.rx_ssn),
                  q.term_tx ? FormatTerminate(*q.term_tx) : std::string(kMissing),
                  q.term_rx ? FormatTerminate(*q.term_rx) : std::string(kMissing), Text(q.error)});
    }
    rows.push_back(std::move(row));
  }
  return FormatTable(rows);
}

std::string FormatStats(const std::vector<Device>& devices, const Options& options) {
  if (options.json) {
    JsonWriter j(options.pretty);
    j.BeginArray();
    for (const Device& d : devices) {
      j.BeginObject();
      j.Field("dev", d.name);
      for (const Counter& c : d.counters) j.Field(c.name, c.value);
      j.EndObject();
    }
    j.EndArray();
    return Finish(j);
  }
  size_t width = 0;
  for (const Device& d : devices)
    for (const Counter& c : d.counters) width = std::max(width, c.name.size());
  std::string out;
  for (const Device& d : devices) {
    out += Text(d.name) + ":\n";
    bool shown = false;
    for (const Counter& c : d.counters) {
      if (c.value == 0 && !options.details) continue;
      out += "    " + std::string(c.name) + std::string(width - c.name.size() + 2, ' ') +
             std::to_string(c.value) + '\n';
      shown = true;
    }
    if (!shown) out += d.counters.empty() ? "    no counters\n" : "    all counters are zero\n";
  }
  return out;
}

std::string FormatRates(const std::vector<Device>& before, const std::vector<Device>& after,
                        std::chrono::milliseconds elapsed, const Options& options) {
  std::map<std::string, std::map<std::string_view, uint64_t>> previous;
  for (const Device& d : before)
    for (const Counter& c : d.counters) previous[d.name.value_or("")][c.name] = c.value;
  const auto ms = static_cast<uint64_t>(std::max<int64_t>(elapsed.count(), 1));

  JsonWriter j(options.pretty);
  std::string out;
  if (options.json) j.BeginArray();
  for (const Device& d : after) {
    const auto& old = previous[d.name.value_or("")];
    if (options.json) {
      j.BeginObject();
      j.Field("dev", d.name);
      j.Field("interval_ms", ms);
    }
    std::string line = Text(d.name) + ":";
    bool shown = false;
    for (const Counter& c : d.counters) {
      auto it = old.find(c.name);
      // A device new since the last sample has no rate yet; a counter that
      // went down was reset, and counts from zero since.
      uint64_t delta = 0;
      if (it != old.end()) delta = c.value >= it->second ? c.value - it->second : c.value;
      const uint64_t rate = (delta * 1000 + ms / 2) / ms;
      if (options.json) j.Field(std::string(c.name) + "_per_sec", rate);
      if (rate == 0 && !options.details) continue;
      line += " " + std::string(c.name) + "/s " + std::to_string(rate);
      shown = true;
    }
    if (options.json) j.EndObject();
    out += line + (shown ? "" : " idle") + '\n';
  }
  if (options.json) {
    j.EndArray();
    return Finish(j);
  }
  return out;
}

std::string FormatEvent(const Event& e, const Options& options) {
  const std::string type = Named(e.type, EventTypeName);
  if (options.json) {
    JsonWriter j(options.pretty);
    j.BeginObject();
    j.Field("event", type);
    j.Field("dev", e.dev);
    j.Field("qpn", e.qp_num);
    if (e.qp_state) j.Field("state", QpStateName(*e.qp_state));
    JsonTerminate(j, "terminate", e.term);
    if (e.error) {
      j.Field("errno", *e.error);
      j.Field("error", std::strerror(static_cast<int>(*e.error)));
    }
    JsonEndpoint(j, "remote", e.remote);
    j.EndObject();
    return Finish(j);
  }
  std::string out = type + " " + Text(e.dev);
  if (e.qp_num) out += " qp " + std::to_string(*e.qp_num);
  if (e.qp_state) out += " state " + QpStateName(*e.qp_state);
  if (e.term) out += " terminate " + FormatTerminate(*e.term);
  if (e.remote) out += " remote " + e.remote->ToString();
  if (e.error) out += " error " + ErrnoText(*e.error);
  return out + '\n';
}

}  // namespace rddpctl
