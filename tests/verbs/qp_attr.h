// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The RC QP the in-guest test programs create: one CQ for both queues,
// four WQEs and one SGE each way.
#ifndef RDDP_TESTS_VERBS_QP_ATTR_H
#define RDDP_TESTS_VERBS_QP_ATTR_H

#include <infiniband/verbs.h>

namespace rddp_test {

inline ibv_qp_init_attr SmallRcQpAttr(ibv_cq* cq) {
  ibv_qp_init_attr a{};
  a.send_cq = cq;
  a.recv_cq = cq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = 4;
  a.cap.max_recv_wr = 4;
  a.cap.max_send_sge = 1;
  a.cap.max_recv_sge = 1;
  return a;
}

}  // namespace rddp_test

#endif  // RDDP_TESTS_VERBS_QP_ATTR_H
