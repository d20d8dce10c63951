:INPUT
@bloomctl -q create t-addr --bits 4096 --hashes 3 --key addr
@bloomctl -q create t-net --bits 4096 --hashes 3 --key net
@bloomctl -q create t-port --bits 4096 --hashes 3 --key addr,port
@bloomctl -q create t-flow --bits 4096 --hashes 3 --key flow
@bloomctl -q create t-digest --bits 4096 --hashes 3 --key digest
@bloomctl -q create t-bytes --bits 4096 --hashes 3 --key bytes
@bloomctl -q create t-abcdefghijklmnopqrstuvwxyz012 --bits 4096 --hashes 3 --key addr
-m bloom --bloom-set t-addr;=;OK
-m bloom ! --bloom-set t-addr;=;OK
-m bloom --bloom-set t-addr --bloom-key addr --bloom-dir src;-m bloom --bloom-set t-addr;OK
-m bloom --bloom-set t-addr --bloom-dir dst;=;OK
-m bloom --bloom-set t-addr --bloom-update;=;OK
-m bloom --bloom-update --bloom-dir dst ! --bloom-set t-addr;-m bloom ! --bloom-set t-addr --bloom-dir dst --bloom-update;OK
-m bloom --bloom-set t-net --bloom-key net;=;OK
-m bloom --bloom-set t-net --bloom-key net --bloom-dir dst;=;OK
-m bloom --bloom-set t-port --bloom-key addr,port --bloom-dir dst;=;OK
-m bloom --bloom-set t-flow --bloom-key flow --bloom-update;=;OK
-m bloom --bloom-set t-digest --bloom-key digest;-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 64;OK
-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 0 --bloom-update;=;OK
-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 010;-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 10;OK
-m bloom --bloom-set t-abcdefghijklmnopqrstuvwxyz012;=;OK
-m bloom --bloom-set t-addr -m bloom --bloom-set t-port --bloom-key addr,port;=;OK
# no filter, or one of another key type
-m bloom --bloom-set nosuch;;FAIL
-m bloom --bloom-set t-addr --bloom-key net;;FAIL
-m bloom --bloom-set t-net;;FAIL
-m bloom --bloom-set t-bytes;;FAIL
# bad options
-m bloom;;FAIL
-m bloom --bloom-key addr;;FAIL
-m bloom --bloom-set;;FAIL
-m bloom --bloom-set "";;FAIL
-m bloom --bloom-set t-addr --bloom-key bytes;;FAIL
-m bloom --bloom-set t-addr --bloom-dir both;;FAIL
-m bloom --bloom-set t-net --bloom-key net --bloom-update;;FAIL
-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 65;;FAIL
-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes -1;;FAIL
-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 0x40;;FAIL
-m bloom --bloom-set t-digest --bloom-key digest --bloom-dir dst;;FAIL
-m bloom --bloom-set t-addr --bloom-digest-bytes 8;;FAIL
-m bloom --bloom-set a/b;;FAIL
-m bloom --bloom-set t-addr ! --bloom-update;;FAIL
-m bloom --bloom-set t-addr --bloom-set t-addr;;FAIL
-m bloom --bloom-set 0123456789abcdef0123456789abcdef;;FAIL
