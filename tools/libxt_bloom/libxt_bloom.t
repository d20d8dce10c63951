:INPUT
@bloomctl -q create t-addr --bits 4096 --hashes 3 --key addr
@bloomctl -q create t-net --bits 4096 --hashes 3 --key net
@bloomctl -q create t-port --bits 4096 --hashes 3 --key addr,port
@bloomctl -q create t-flow --bits 4096 --hashes 3 --key flow
@bloomctl -q create t-digest --bits 4096 --hashes 3 --key digest
@bloomctl -q create t-bytes --bits 4096 --hashes 3 --key bytes
@bloomctl -q create t-abcdefghijklmnopqrstuvwxyz012 --bits 4096 --hashes 3 --key addr
@printf '192.0.2.0/24 3\n198.51.100.7 1\n2001:db8::/32 2\n' | bloomctl -q build --kind fuse8 --values --key net --out - | bloomctl -q restore - --name t-map
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
# --bloom-value (revision 3): values and ranges, saved as V and V:V
-m bloom --bloom-set t-map --bloom-key net --bloom-value 3;=;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,3:5;=;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,3-5;-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,3:5;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 0:65535;=;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 7:7,010;-m bloom --bloom-set t-map --bloom-key net --bloom-value 7,10;OK
-m bloom --bloom-set t-map --bloom-key net ! --bloom-value 2;=;OK
-m bloom ! --bloom-set t-map --bloom-key net --bloom-value 2;=;OK
-m bloom ! --bloom-set t-map --bloom-key net ! --bloom-value 1:2;=;OK
-m bloom --bloom-value 3,1 --bloom-dir dst --bloom-set t-map --bloom-key net;-m bloom --bloom-set t-map --bloom-key net --bloom-dir dst --bloom-value 3,1;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16;=;OK
-m bloom --bloom-set t-addr --bloom-value 0;=;OK
-m bloom --bloom-set t-digest --bloom-key digest --bloom-value 0;-m bloom --bloom-set t-digest --bloom-key digest --bloom-digest-bytes 64 --bloom-value 0;OK
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1 -m bloom --bloom-set t-addr;=;OK
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
-m bloom --bloom-set t-map --bloom-key net --bloom-value;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value "";;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 5:3;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 65536;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value -1;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 0x3;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,,2;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1:;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1:2:3;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value " 1";;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17;;FAIL
-m bloom --bloom-set t-map --bloom-key net --bloom-value 1 --bloom-value 2;;FAIL
-m bloom --bloom-set t-addr --bloom-value 1 --bloom-update;;FAIL
-m bloom --bloom-set t-map --bloom-value 1;;FAIL
