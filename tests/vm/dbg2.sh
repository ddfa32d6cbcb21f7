. /rddp/tests/vm/lib.sh
me=$RDDP_LOCAL_IP peer=$RDDP_PEER_IP
t_barrier up
if [ $RDDP_ROLE = a ]; then modprobe rddp; rdma link add rddp0 type rddp netdev eth0; dev=rddp0; else modprobe siw; rdma link add siw0 type siw netdev eth0; dev=siw0; fi
t_barrier loaded
if [ $RDDP_ROLE = a ]; then timeout 60 ib_send_bw -R -d $dev -F -s 65536 -n 10; else sleep 2; timeout 60 ib_send_bw -R -d $dev -F -s 65536 -n 10 $peer; fi
t_barrier done1
dmesg | grep -i "rddp\|siw" | tail -20
t_ok done
