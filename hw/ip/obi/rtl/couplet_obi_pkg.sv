// The OBI bus port as two structs, one per direction, so that every module names a bus port
// with two signals instead of repeating eleven fields (hw/ip/obi/README.md).
//
// The bus is OpenHW OBI 1.x as the CV32E40X uses it, with these rules, which every master and
// slave of couplet keeps:
//   1. A request is accepted in a cycle with req and gnt both high. Once req is high, req and
//      every request field stay as they are until that cycle.
//   2. A slave may raise gnt whether or not req is high; gnt means nothing without req.
//   3. Each accepted request gets exactly one response (rvalid high for one cycle), at the
//      earliest in the cycle after its acceptance, and responses come in request order.
//   4. rdata, err and exokay mean something only with rvalid; err answers a request that did not
//      take place, exokay reports a successful atomic or exclusive access.
//   5. atop[5] marks an atomic or exclusive access, atop[4:0] its RISC-V AMO funct5 code; a port
//      that takes no atomics must not see atop[5] (the decoder answers such requests itself).
//
// The split follows the direction a signal travels, not the phase of the protocol it belongs
// to: gnt is part of the request handshake, but the slave drives it, so it travels with the
// response. A port is then one struct in and one struct out: a slave has `<port>_req_i` and
// `<port>_rsp_o`, a master `<port>_req_o` and `<port>_rsp_i`, and wiring a master to a slave
// is two assignments whichever fields they use. A slave that has no exokay (or a master that
// sends no atomics) drives the field to zero rather than leaving it out, so every port has the
// one type and the fields a module ignores are visible in it as unused.
package couplet_obi_pkg;

  // Master to slave.
  typedef struct packed {
    logic        req;
    logic [31:0] addr;
    logic        we;
    logic [3:0]  be;
    logic [31:0] wdata;
    logic [5:0]  atop;
  } obi_req_t;

  // Slave to master.
  typedef struct packed {
    logic        gnt;
    logic        rvalid;
    logic [31:0] rdata;
    logic        err;
    logic        exokay;
  } obi_rsp_t;

endpackage
