// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's command line (userspace/rddpctl/args.h): every command, every
// option, every error and its message.
#include <gtest/gtest.h>
#include <linux/rddp_netlink.h>

#include <string>
#include <vector>

#include "args.h"
#include "error.h"

namespace rddpctl {
namespace {

Request Parse(const std::vector<std::string>& args) { return ParseArgs(args); }

// The UsageError message for `args`; fails the test if they parse.
std::string UsageMessage(const std::vector<std::string>& args) {
  try {
    ParseArgs(args);
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(e.hint().find("usage: "), std::string::npos);
    return e.what();
  }
  ADD_FAILURE() << "parsed without error";
  return {};
}

TEST(RddpctlArgs, DevShowForms) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"dev"}, {"dev", "show"}, {"dev", "list"}, {"device", "show"}}) {
    Request r = Parse(args);
    EXPECT_EQ(r.command, Command::kDevShow);
    EXPECT_EQ(r.dev, "");
  }
  EXPECT_EQ(Parse({"dev", "show", "rddp0"}).dev, "rddp0");
  EXPECT_EQ(Parse({"dev", "show", "dev", "rddp0"}).dev, "rddp0");
  EXPECT_EQ(Parse({"dev", "dev", "rddp1"}).dev, "rddp1");
}

TEST(RddpctlArgs, Options) {
  Request r = Parse({"-j", "-p", "-s", "dev"});
  EXPECT_EQ(r.options, (Options{.json = true, .pretty = true, .details = true}));
  r = Parse({"--json", "--pretty", "--stats", "dev"});
  EXPECT_EQ(r.options, (Options{.json = true, .pretty = true, .details = true}));
  EXPECT_TRUE(Parse({"--details", "dev"}).options.details);
  // Options after the object too, as in `rddpctl stats rddp0 -w 1`.
  r = Parse({"dev", "show", "rddp0", "-j"});
  EXPECT_TRUE(r.options.json);
  EXPECT_EQ(r.dev, "rddp0");
  EXPECT_EQ(Parse({"-j", "dev"}).options, (Options{.json = true}));
}

TEST(RddpctlArgs, DoubleDashEndsOptions) {
  Request r = Parse({"--", "dev", "show", "-weird"});
  EXPECT_EQ(r.dev, "-weird");
}

TEST(RddpctlArgs, HelpAndVersion) {
  EXPECT_EQ(Parse({"-h"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"help"}).command, Command::kHelp);
  Request r = Parse({"dev", "help"});
  EXPECT_EQ(r.command, Command::kHelp);
  EXPECT_EQ(r.help_object, "dev");
  r = Parse({"stats", "-h"});
  EXPECT_EQ(r.command, Command::kHelp);
  EXPECT_EQ(r.help_object, "stats");
  // Help wins over anything wrong beside it.
  EXPECT_EQ(Parse({"-h", "frobnicate", "--bogus"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"-V"}).command, Command::kVersion);
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
}

TEST(RddpctlArgs, UsageText) {
  const std::string all = Usage("");
  for (const char* word : {"dev [show", "dev set", "tx-zcopy on|off", "peer-timeout-ms MS",
                           "transport tcp|sctp", "qp [show]", "stats [show]", "stats reset",
                           "monitor", "link add", "link del", "-j", "-p", "-s", "-w", "-h", "-V"})
    EXPECT_NE(all.find(word), std::string::npos) << word;
  const std::string link = Usage("link");
  EXPECT_NE(link.find("link add"), std::string::npos);
  EXPECT_EQ(link.find("dev set"), std::string::npos);
  EXPECT_EQ(UsageHint("qp").rfind("usage: rddpctl", 0), 0U);
}

TEST(RddpctlArgs, DevSet) {
  Request r = Parse(
      {"dev", "set", "rddp0", "crc", "off", "markers", "on", "mpa-rev", "1", "tx-batch", "off"});
  EXPECT_EQ(r.command, Command::kDevSet);
  EXPECT_EQ(r.dev, "rddp0");
  EXPECT_EQ(r.settings, (Settings{.crc = false, .markers = true, .mpa_rev = 1, .tx_batch = false}));
  r = Parse({"dev", "set", "rddp0", "tx-zcopy", "off"});
  EXPECT_EQ(r.settings, (Settings{.tx_zcopy = false}));
  r = Parse({"dev", "set", "rddp0", "crc", "off", "tx-zcopy", "on", "tx-batch", "on"});
  EXPECT_EQ(r.settings, (Settings{.crc = false, .tx_batch = true, .tx_zcopy = true}));
  r = Parse({"dev", "set", "rddp0", "mpa-rev", "2"});
  EXPECT_EQ(r.settings, (Settings{.mpa_rev = 2}));
  r = Parse({"dev", "set", "rddp0", "crc", "on"});
  EXPECT_EQ(r.settings, (Settings{.crc = true}));
  r = Parse({"dev", "set", "rddp0", "peer-timeout-ms", "3000"});
  EXPECT_EQ(r.settings, (Settings{.peer_timeout_ms = 3000}));
  r = Parse({"dev", "set", "rddp0", "peer-timeout-ms", "0", "crc", "off"});
  EXPECT_EQ(r.settings, (Settings{.crc = false, .peer_timeout_ms = 0}));
  r = Parse({"dev", "set", "rddp0", "peer-timeout-ms", "3600000"});
  EXPECT_EQ(r.settings, (Settings{.peer_timeout_ms = 3600000}));
  r = Parse({"dev", "set", "rddp0", "transport", "sctp"});
  EXPECT_EQ(r.settings, (Settings{.transport = RDDP_TRANSPORT_SCTP}));
  r = Parse({"dev", "set", "rddp0", "crc", "on", "transport", "tcp"});
  EXPECT_EQ(r.settings, (Settings{.crc = true, .transport = RDDP_TRANSPORT_TCP}));
  r = Parse({"dev", "set", "rddp0", "multihome", "on"});
  EXPECT_EQ(r.settings, (Settings{.multihome = true}));
  r = Parse({"dev", "set", "rddp0", "transport", "sctp", "multihome", "off"});
  EXPECT_EQ(r.settings, (Settings{.transport = RDDP_TRANSPORT_SCTP, .multihome = false}));
}

TEST(RddpctlArgs, DevSetErrors) {
  EXPECT_EQ(UsageMessage({"dev", "set"}), "dev: device name missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0"}),
            "dev: set needs at least one setting (crc, markers, mpa-rev, tx-batch, tx-zcopy, "
            "peer-timeout-ms, transport, multihome)");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "crc", "maybe"}),
            "dev: crc takes on or off, not 'maybe'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "crc"}), "dev: crc value missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "markers", "1"}),
            "dev: markers takes on or off, not '1'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "tx-batch", "yes"}),
            "dev: tx-batch takes on or off, not 'yes'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "tx-zcopy", "no"}),
            "dev: tx-zcopy takes on or off, not 'no'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "tx-zcopy"}), "dev: tx-zcopy value missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "tx-zcopy", "on", "tx-zcopy", "off"}),
            "dev: tx-zcopy given twice");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "transport", "udp"}),
            "dev: transport takes tcp or sctp, not 'udp'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "transport"}), "dev: transport value missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "transport", "tcp", "transport", "sctp"}),
            "dev: transport given twice");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "multihome", "yes"}),
            "dev: multihome takes on or off, not 'yes'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "mpa-rev", "3"}),
            "dev: mpa-rev takes 1 or 2, not '3'");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "mpa-rev"}), "dev: mpa-rev value missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "speed", "fast"}),
            "dev: unknown setting 'speed' (crc, markers, mpa-rev, tx-batch, tx-zcopy, "
            "peer-timeout-ms, transport, multihome)");
  for (const char* bad : {"999", "1", "3600001", "60s", "+5", "", "4294967296"}) {
    EXPECT_EQ(
        UsageMessage({"dev", "set", "rddp0", "peer-timeout-ms", bad}),
        std::string("dev: peer-timeout-ms takes 0 (off) or 1000 to 3600000, not '") + bad + "'")
        << bad;
  }
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "peer-timeout-ms"}),
            "dev: peer-timeout-ms value missing");
  EXPECT_EQ(UsageMessage({"dev", "set", "rddp0", "crc", "on", "crc", "off"}),
            "dev: crc given twice");
}

TEST(RddpctlArgs, DevShowErrors) {
  EXPECT_EQ(UsageMessage({"dev", "frob"}), "dev: unknown command 'frob' (show, set)");
  EXPECT_EQ(UsageMessage({"dev", "show", "a", "b"}), "dev: unexpected argument 'b'");
  EXPECT_EQ(UsageMessage({"dev", "show", "dev"}), "dev: device name missing");
  EXPECT_EQ(UsageMessage({"dev", "show", std::string(64, 'x')}),
            "dev: device name must have 1 to 63 characters");
  EXPECT_EQ(UsageMessage({"dev", "show", ""}), "dev: device name must have 1 to 63 characters");
  EXPECT_EQ(UsageMessage({"dev", "show", "a/b"}),
            "dev: device name 'a/b' has a forbidden character");
  EXPECT_EQ(Parse({"dev", "show", std::string(63, 'x')}).dev, std::string(63, 'x'));
}

TEST(RddpctlArgs, Qp) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"qp"}, {"qp", "show"}, {"qp", "list"}}) {
    Request r = Parse(args);
    EXPECT_EQ(r.command, Command::kQpShow);
    EXPECT_EQ(r.dev, "");
  }
  EXPECT_EQ(Parse({"qp", "show", "dev", "rddp0"}).dev, "rddp0");
  EXPECT_EQ(Parse({"qp", "dev", "rddp0"}).dev, "rddp0");
  EXPECT_TRUE(Parse({"-s", "qp"}).options.details);
}

TEST(RddpctlArgs, QpErrors) {
  EXPECT_EQ(UsageMessage({"qp", "rddp0"}), "qp: unknown command 'rddp0' (show)");
  EXPECT_EQ(UsageMessage({"qp", "show", "rddp0"}), "qp: unexpected argument 'rddp0'");
  EXPECT_EQ(UsageMessage({"qp", "show", "dev"}), "qp: device name missing");
  EXPECT_EQ(UsageMessage({"qp", "show", "dev", "a", "b"}), "qp: unexpected argument 'b'");
}

TEST(RddpctlArgs, Stats) {
  Request r = Parse({"stats"});
  EXPECT_EQ(r.command, Command::kStatsShow);
  EXPECT_EQ(r.dev, "");
  EXPECT_FALSE(r.watch_seconds);
  EXPECT_EQ(Parse({"stats", "show", "rddp0"}).dev, "rddp0");
  EXPECT_EQ(Parse({"statistic", "rddp0"}).dev, "rddp0");
  EXPECT_EQ(Parse({"stats", "dev", "rddp0"}).dev, "rddp0");
  r = Parse({"stats", "rddp0", "-w", "1"});
  EXPECT_EQ(r.dev, "rddp0");
  EXPECT_EQ(r.watch_seconds, 1U);
  EXPECT_EQ(Parse({"-w", "5", "stats"}).watch_seconds, 5U);
  EXPECT_EQ(Parse({"stats", "--watch=10"}).watch_seconds, 10U);
  EXPECT_EQ(Parse({"stats", "--watch", "86400"}).watch_seconds, 86400U);
  r = Parse({"stats", "reset", "rddp0"});
  EXPECT_EQ(r.command, Command::kStatsReset);
  EXPECT_EQ(r.dev, "rddp0");
}

TEST(RddpctlArgs, StatsErrors) {
  EXPECT_EQ(UsageMessage({"stats", "reset"}), "stats: device name missing");
  EXPECT_EQ(UsageMessage({"stats", "reset", "a", "b"}), "stats: unexpected argument 'b'");
  EXPECT_EQ(UsageMessage({"stats", "a", "b"}), "stats: unexpected argument 'b'");
  EXPECT_EQ(UsageMessage({"stats", "-w"}), "-w needs a number of seconds");
  for (const char* bad : {"0", "-1", "x", "1.5", "86401", "", "99999999999999"}) {
    EXPECT_EQ(UsageMessage({"stats", "-w", bad}),
              "-w takes a number of seconds from 1 to 86400, not '" + std::string(bad) + "'");
  }
  EXPECT_EQ(UsageMessage({"stats", "reset", "rddp0", "-w", "1"}),
            "-w applies to stats [show] only");
  EXPECT_EQ(UsageMessage({"dev", "-w", "1"}), "-w applies to stats [show] only");
}

TEST(RddpctlArgs, Monitor) {
  EXPECT_EQ(Parse({"monitor"}).command, Command::kMonitor);
  EXPECT_TRUE(Parse({"-j", "monitor"}).options.json);
  EXPECT_EQ(UsageMessage({"monitor", "all"}), "monitor: unexpected argument 'all'");
}

TEST(RddpctlArgs, LinkAdd) {
  Request r = Parse({"link", "add", "rddp0", "netdev", "eth0"});
  EXPECT_EQ(r.command, Command::kLinkAdd);
  EXPECT_EQ(r.dev, "rddp0");
  EXPECT_EQ(r.netdev, "eth0");
  // rdma(8)'s spelling works too.
  r = Parse({"link", "add", "rddp1", "type", "rddp", "netdev", "veth1"});
  EXPECT_EQ(r.dev, "rddp1");
  EXPECT_EQ(r.netdev, "veth1");
}

TEST(RddpctlArgs, LinkAddErrors) {
  EXPECT_EQ(UsageMessage({"link"}), "link: command missing (add, del)");
  EXPECT_EQ(UsageMessage({"link", "show"}), "link: unknown command 'show' (add, del)");
  EXPECT_EQ(UsageMessage({"link", "add"}), "link: link name missing");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0"}), "link: add needs netdev NETDEV");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev"}), "link: netdev name missing");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp%d", "netdev", "eth0"}),
            "link: link name 'rddp%d' has a forbidden character");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev", "eth0", "netdev", "eth1"}),
            "link: netdev given twice");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "type", "siw", "netdev", "eth0"}),
            "link: rddpctl adds links of type rddp only, not 'siw'");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev", "eth0", "mtu", "9000"}),
            "link: unexpected argument 'mtu'");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev", "a-very-long-name"}),
            "link: netdev name must have 1 to 15 characters");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev", "eth0:1"}),
            "link: netdev name 'eth0:1' has a forbidden character");
  EXPECT_EQ(UsageMessage({"link", "add", "rddp0", "netdev", ".."}),
            "link: '..' is not a netdev name");
}

TEST(RddpctlArgs, LinkDel) {
  for (const char* verb : {"del", "delete"}) {
    Request r = Parse({"link", verb, "rddp0"});
    EXPECT_EQ(r.command, Command::kLinkDel);
    EXPECT_EQ(r.dev, "rddp0");
  }
  EXPECT_EQ(UsageMessage({"link", "del"}), "link: link name missing");
  EXPECT_EQ(UsageMessage({"link", "del", "a", "b"}), "link: unexpected argument 'b'");
}

TEST(RddpctlArgs, GlobalErrors) {
  EXPECT_EQ(UsageMessage({"frobnicate"}),
            "unknown object 'frobnicate' (dev, qp, stats, monitor, link)");
  EXPECT_EQ(UsageMessage({}), "an object is required (dev, qp, stats, monitor, link)");
  EXPECT_EQ(UsageMessage({"-j"}), "an object is required (dev, qp, stats, monitor, link)");
  EXPECT_EQ(UsageMessage({"-x", "dev"}), "unknown option '-x'");
  EXPECT_EQ(UsageMessage({"dev", "--colour"}), "unknown option '--colour'");
  EXPECT_EQ(UsageMessage({"-p", "dev"}), "-p pretty-prints JSON: use it with -j");
}

}  // namespace
}  // namespace rddpctl
