// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's command-line parser (args.h). Options may appear anywhere, as
// `rddpctl stats rddp0 -w 1` reads naturally; the words left over form
// OBJECT COMMAND ARGS.
#include "args.h"

#include <linux/rddp_netlink.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <utility>

#include "error.h"

namespace rddpctl {

namespace {

// A name fits the kernel's buffers with their NUL: IB_DEVICE_NAME_MAX and
// IFNAMSIZ.
constexpr size_t kMaxDeviceName = 63;
constexpr size_t kMaxNetdevName = 15;
constexpr unsigned kMaxWatchSeconds = 86400;
// RDDP_A_SET_PEER_TIMEOUT_MS: 0 (off) or this range, as the module checks.
constexpr uint32_t kMinPeerTimeoutMs = 1000;
constexpr uint32_t kMaxPeerTimeoutMs = 3600000;
constexpr std::string_view kSettingNames =
    "crc, markers, mpa-rev, tx-batch, tx-zcopy, peer-timeout-ms, transport, multihome";

struct ObjectUsage {
  std::string_view object;
  std::string_view lines;
};

constexpr std::array<ObjectUsage, 5> kObjectUsage = {{
    {"dev",
     "       rddpctl [-j [-p]] [-s] dev [show [DEV]]\n"
     "       rddpctl dev set DEV [crc on|off] [markers on|off] [mpa-rev 1|2]\n"
     "               [tx-batch on|off] [tx-zcopy on|off] [peer-timeout-ms MS]\n"
     "               [transport tcp|sctp] [multihome on|off]\n"},
    {"qp", "       rddpctl [-j [-p]] [-s] qp [show] [dev DEV]\n"},
    {"stats",
     "       rddpctl [-j [-p]] [-s] stats [show] [DEV] [-w SECONDS]\n"
     "       rddpctl stats reset DEV\n"},
    {"monitor", "       rddpctl [-j [-p]] monitor\n"},
    {"link",
     "       rddpctl link add NAME [type rddp] netdev NETDEV\n"
     "       rddpctl link del NAME\n"},
}};

constexpr std::string_view kOptionsUsage =
    "options: -j, --json     JSON output\n"
    "         -p, --pretty   indented JSON (with -j)\n"
    "         -s, --stats    more detail: counters, per-QP traffic and errors\n"
    "         -w, --watch N  stats: rates every N seconds until interrupted\n"
    "         -h, --help     this text\n"
    "         -V, --version  the version\n";

std::string ObjectsList() { return "dev, qp, stats, monitor, link"; }

// The object words the parser accepts, with their canonical names.
std::string_view CanonicalObject(std::string_view word) {
  if (word == "dev" || word == "device") return "dev";
  if (word == "qp") return "qp";
  if (word == "stats" || word == "statistic") return "stats";
  if (word == "monitor") return "monitor";
  if (word == "link") return "link";
  return {};
}

// The positional words of one object's command, consumed in order.
class Words {
 public:
  Words(std::vector<std::string> words, std::string_view object)
      : words_(std::move(words)), object_(object) {}

  [[nodiscard]] bool Done() const { return next_ == words_.size(); }
  [[nodiscard]] const std::string& Peek() const { return words_[next_]; }

  // The next word; `what` names it in the error when it is missing.
  std::string Next(std::string_view what) {
    if (Done()) Fail(std::string(what) + " missing");
    return words_[next_++];
  }

  bool Accept(std::string_view word) {
    if (!Done() && words_[next_] == word) {
      next_++;
      return true;
    }
    return false;
  }

  void ExpectEnd() {
    if (!Done()) Fail("unexpected argument '" + words_[next_] + "'");
  }

  [[noreturn]] void Fail(const std::string& message) const {
    throw UsageError(std::string(object_) + ": " + message, UsageHint(object_));
  }

 private:
  std::vector<std::string> words_;
  size_t next_ = 0;
  std::string_view object_;
};

bool ParseOnOff(Words& w, std::string_view key) {
  std::string value = w.Next(std::string(key) + " value");
  if (value == "on") return true;
  if (value == "off") return false;
  w.Fail(std::string(key) + " takes on or off, not '" + value + "'");
}

// An ib_device name (rdma link and dev_set_name() rules): no '/', no
// whitespace; `link add` also refuses '%', which the RDMA core would
// expand as a name pattern.
std::string DeviceName(Words& w, std::string_view what, bool for_link_add = false) {
  std::string name = w.Next(what);
  if (name.empty() || name.size() > kMaxDeviceName)
    w.Fail(std::string(what) + " must have 1 to 63 characters");
  for (char c : name) {
    if (c == '/' || c == ' ' || c == '\t' || c == '\n' || (for_link_add && c == '%'))
      w.Fail(std::string(what) + " '" + name + "' has a forbidden character");
  }
  return name;
}

// A network interface name (the kernel's dev_valid_name()).
std::string NetdevName(Words& w) {
  std::string name = w.Next("netdev name");
  if (name.empty() || name.size() > kMaxNetdevName)
    w.Fail("netdev name must have 1 to 15 characters");
  if (name == "." || name == "..") w.Fail("'" + name + "' is not a netdev name");
  for (char c : name) {
    if (c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n')
      w.Fail("netdev name '" + name + "' has a forbidden character");
  }
  return name;
}

// peer-timeout-ms: 0 turns the bound off, else 1000 to 3600000 ms.
uint32_t ParsePeerTimeout(Words& w) {
  std::string value = w.Next("peer-timeout-ms value");
  uint32_t ms = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, ms);
  if (ec != std::errc() || ptr != end || value.empty() ||
      (ms != 0 && (ms < kMinPeerTimeoutMs || ms > kMaxPeerTimeoutMs)))
    w.Fail("peer-timeout-ms takes 0 (off) or 1000 to 3600000, not '" + value + "'");
  return ms;
}

// One `dev set` KEY VALUE pair into @s.
void ParseSetting(Words& w, Settings& s) {
  std::string key = w.Next("setting");
  auto once = [&](auto& field) -> auto& {
    if (field) w.Fail(key + " given twice");
    return field;
  };
  if (key == "crc") {
    once(s.crc) = ParseOnOff(w, key);
  } else if (key == "markers") {
    once(s.markers) = ParseOnOff(w, key);
  } else if (key == "tx-batch") {
    once(s.tx_batch) = ParseOnOff(w, key);
  } else if (key == "tx-zcopy") {
    once(s.tx_zcopy) = ParseOnOff(w, key);
  } else if (key == "peer-timeout-ms") {
    once(s.peer_timeout_ms) = ParsePeerTimeout(w);
  } else if (key == "transport") {
    std::string value = w.Next("transport value");
    if (value != "tcp" && value != "sctp")
      w.Fail("transport takes tcp or sctp, not '" + value + "'");
    once(s.transport) =
        static_cast<uint8_t>(value == "tcp" ? RDDP_TRANSPORT_TCP : RDDP_TRANSPORT_SCTP);
  } else if (key == "multihome") {
    once(s.multihome) = ParseOnOff(w, key);
  } else if (key == "mpa-rev") {
    std::string value = w.Next("mpa-rev value");
    if (value != "1" && value != "2") w.Fail("mpa-rev takes 1 or 2, not '" + value + "'");
    once(s.mpa_rev) = static_cast<uint8_t>(value == "1" ? 1 : 2);
  } else {
    w.Fail("unknown setting '" + key + "' (" + std::string(kSettingNames) + ")");
  }
}

void ParseDev(Words& w, Request& r) {
  if (w.Accept("set")) {
    r.command = Command::kDevSet;
    r.dev = DeviceName(w, "device name");
    while (!w.Done()) ParseSetting(w, r.settings);
    if (r.settings.Empty())
      w.Fail("set needs at least one setting (" + std::string(kSettingNames) + ")");
    return;
  }
  r.command = Command::kDevShow;
  if (!w.Accept("show") && !w.Accept("list") && !w.Done() && w.Peek() != "dev") {
    // `rddpctl dev rddp0`, as `ip link eth0` is not: name the mistake.
    w.Fail("unknown command '" + w.Peek() + "' (show, set)");
  }
  // `dev show dev rddp0`, as ip(8) accepts it.
  if (w.Accept("dev") || !w.Done()) r.dev = DeviceName(w, "device name");
  w.ExpectEnd();
}

void ParseQp(Words& w, Request& r) {
  r.command = Command::kQpShow;
  if (!w.Accept("show") && !w.Accept("list") && !w.Done() && w.Peek() != "dev")
    w.Fail("unknown command '" + w.Peek() + "' (show)");
  if (w.Accept("dev")) r.dev = DeviceName(w, "device name");
  w.ExpectEnd();
}

void ParseStats(Words& w, Request& r) {
  if (w.Accept("reset")) {
    r.command = Command::kStatsReset;
    r.dev = DeviceName(w, "device name");
    w.ExpectEnd();
    return;
  }
  r.command = Command::kStatsShow;
  w.Accept("show");
  if (w.Accept("dev") || !w.Done()) r.dev = DeviceName(w, "device name");
  w.ExpectEnd();
}

void ParseLink(Words& w, Request& r) {
  if (w.Accept("add")) {
    r.command = Command::kLinkAdd;
    r.dev = DeviceName(w, "link name", /*for_link_add=*/true);
    while (!w.Done()) {
      std::string key = w.Next("argument");
      if (key == "netdev") {
        if (!r.netdev.empty()) w.Fail("netdev given twice");
        r.netdev = NetdevName(w);
      } else if (key == "type") {
        std::string type = w.Next("link type");
        if (type != "rddp") w.Fail("rddpctl adds links of type rddp only, not '" + type + "'");
      } else {
        w.Fail("unexpected argument '" + key + "'");
      }
    }
    if (r.netdev.empty()) w.Fail("add needs netdev NETDEV");
    return;
  }
  if (w.Accept("del") || w.Accept("delete")) {
    r.command = Command::kLinkDel;
    r.dev = DeviceName(w, "link name");
    w.ExpectEnd();
    return;
  }
  if (w.Done()) w.Fail("command missing (add, del)");
  w.Fail("unknown command '" + w.Peek() + "' (add, del)");
}

[[noreturn]] void FailGlobal(const std::string& message) {
  throw UsageError(message, UsageHint(""));
}

unsigned ParseWatchSeconds(std::string_view value) {
  unsigned seconds = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, seconds);
  if (ec != std::errc() || ptr != end || seconds == 0 || seconds > kMaxWatchSeconds) {
    throw UsageError(
        "-w takes a number of seconds from 1 to 86400, not '" + std::string(value) + "'",
        UsageHint("stats"));
  }
  return seconds;
}

}  // namespace

std::string UsageHint(std::string_view object) {
  std::string out;
  for (const auto& u : kObjectUsage)
    if (object.empty() || u.object == object) out += u.lines;
  // The first line's indent makes room for "usage: ".
  out.replace(0, std::string_view("usage: ").size(), "usage: ");
  return out + "(rddpctl -h lists the options; man 8 rddpctl has the details)\n";
}

std::string Usage(std::string_view object) {
  std::string out = "usage: rddpctl [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n";
  for (const auto& u : kObjectUsage)
    if (object.empty() || u.object == object) out += u.lines;
  out += kOptionsUsage;
  return out;
}

Request ParseArgs(const std::vector<std::string>& args) {
  Request r;
  std::vector<std::string> words;
  bool options_done = false;
  bool help = false;
  bool version = false;
  std::optional<std::string> watch;
  // Reported after the scan: -h and -V win over a bad option beside them.
  std::optional<std::string> unknown_option;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      words.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
    } else if (a == "-j" || a == "--json") {
      r.options.json = true;
    } else if (a == "-p" || a == "--pretty") {
      r.options.pretty = true;
    } else if (a == "-s" || a == "--stats" || a == "--details") {
      r.options.details = true;
    } else if (a == "-h" || a == "--help") {
      help = true;
    } else if (a == "-V" || a == "--version") {
      version = true;
    } else if (a == "-w" || a == "--watch") {
      if (i + 1 == args.size())
        throw UsageError("-w needs a number of seconds", UsageHint("stats"));
      watch = args[++i];
    } else if (a.starts_with("--watch=")) {
      watch = a.substr(std::string_view("--watch=").size());
    } else if (!unknown_option) {
      unknown_option = a;
    }
  }
  std::string_view object = words.empty() ? "" : CanonicalObject(words[0]);
  if (help || (!words.empty() && words[0] == "help")) {
    r.command = Command::kHelp;
    r.help_object = std::string(object);
    return r;
  }
  if (version) {
    r.command = Command::kVersion;
    return r;
  }
  if (unknown_option) FailGlobal("unknown option '" + *unknown_option + "'");
  if (r.options.pretty && !r.options.json) FailGlobal("-p pretty-prints JSON: use it with -j");
  if (words.empty()) FailGlobal("an object is required (" + ObjectsList() + ")");
  if (object.empty()) FailGlobal("unknown object '" + words[0] + "' (" + ObjectsList() + ")");

  Words w(std::vector<std::string>(words.begin() + 1, words.end()), object);
  if (w.Accept("help")) {
    r.command = Command::kHelp;
    r.help_object = std::string(object);
    return r;
  }
  if (object == "dev") {
    ParseDev(w, r);
  } else if (object == "qp") {
    ParseQp(w, r);
  } else if (object == "stats") {
    ParseStats(w, r);
  } else if (object == "monitor") {
    r.command = Command::kMonitor;
    w.ExpectEnd();
  } else {
    ParseLink(w, r);
  }
  if (watch) {
    if (r.command != Command::kStatsShow)
      throw UsageError("-w applies to stats [show] only", UsageHint("stats"));
    r.watch_seconds = ParseWatchSeconds(*watch);
  }
  return r;
}

}  // namespace rddpctl
