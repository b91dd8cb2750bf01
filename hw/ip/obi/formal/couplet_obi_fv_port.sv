// The OBI rules of couplet_obi_pkg, for the property checks of `couplet prove` (docs/formal.md):
// one instance watches one port. Each rule is asserted on the side the design under test drives
// and assumed on the side the harness leaves to the solver, so the same module is both the
// checker of a DUT's port and the model of its environment.
//
// Rules (numbers as in couplet_obi_pkg):
//   1. a request not granted stays, unchanged, until it is granted  (the master's side)
//   3. a response only for a request accepted in an earlier cycle;   (the slave's side)
//      at most MaxOutstanding accepted and not yet answered
//   bounds: a request is granted at the latest in the MaxGntWait-th cycle it is shown; while
//      requests are in flight, the next response comes fewer than MaxRspWait cycles after the
//      later of the previous response and the oldest one's acceptance (the slave's side; 0: no
//      bound)
// outstanding_o (accepted and not yet answered, before this cycle) lets a harness follow
// transactions without modelling a queue; with rsp_wait_o (cycles the oldest has waited) it also
// states what ties the port to the DUT's state, which a proof by induction needs.
module couplet_obi_fv_port
  import couplet_obi_pkg::*;
#(
  parameter bit          DutIsMaster    = 1'b0,  // the DUT drives req: rule 1 is asserted
  parameter bit          DutIsSlave     = 1'b0,  // the DUT drives gnt/rvalid: rule 3 and bounds asserted
  parameter int unsigned MaxOutstanding = 2,
  parameter int unsigned MaxGntWait     = 0,
  parameter int unsigned MaxRspWait     = 0,
  localparam int unsigned CntW          = 4
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  obi_req_t        req_i,
  input  obi_rsp_t        rsp_i,
  output logic [CntW-1:0] outstanding_o,
  output logic [CntW-1:0] rsp_wait_o
);

  logic            waiting_q;   // a request was shown last cycle and not granted
  obi_req_t        held_q;
  logic [CntW-1:0] outstanding_q, gnt_wait_q, rsp_wait_q;

  logic unused_rsp_fields;
  assign unused_rsp_fields = ^{rsp_i.rdata, rsp_i.err, rsp_i.exokay};  // a harness compares them

  logic accept;
  assign accept        = req_i.req && rsp_i.gnt;
  assign outstanding_o = outstanding_q;
  assign rsp_wait_o    = rsp_wait_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      waiting_q     <= 1'b0;
      held_q        <= '0;
      outstanding_q <= '0;
      gnt_wait_q    <= '0;
      rsp_wait_q    <= '0;
    end else begin
      waiting_q     <= req_i.req && !rsp_i.gnt;
      held_q        <= req_i;
      outstanding_q <= outstanding_q + CntW'(accept) - CntW'(rsp_i.rvalid);
      gnt_wait_q    <= (req_i.req && !rsp_i.gnt) ? gnt_wait_q + CntW'(1) : '0;
      rsp_wait_q    <= (outstanding_o + CntW'(accept) - CntW'(rsp_i.rvalid) == '0) ? '0
                     : rsp_i.rvalid ? '0 : rsp_wait_q + CntW'(1);
    end
  end

  logic held_ok, rsp_ok, in_flight_ok, gnt_wait_ok, rsp_wait_ok;
  assign held_ok      = !waiting_q || (req_i == held_q);
  assign rsp_ok       = !rsp_i.rvalid || (outstanding_q != '0);
  assign in_flight_ok = outstanding_q <= CntW'(MaxOutstanding);
  assign gnt_wait_ok  = (MaxGntWait == 0) || (gnt_wait_q < CntW'(MaxGntWait));
  assign rsp_wait_ok  = (MaxRspWait == 0) || (rsp_wait_q < CntW'(MaxRspWait));

  always_comb begin
    if (rst_ni) begin
      if (DutIsMaster) begin
        ReqHeld: assert (held_ok);
      end else begin
        ReqHeldEnv: assume (held_ok);
      end
      if (DutIsSlave) begin
        RspAfterReq: assert (rsp_ok);
        InFlight: assert (in_flight_ok);
        GntInTime: assert (gnt_wait_ok);
        RspInTime: assert (rsp_wait_ok);
      end else begin
        RspAfterReqEnv: assume (rsp_ok);
        InFlightEnv: assume (in_flight_ok);
        GntInTimeEnv: assume (gnt_wait_ok);
        RspInTimeEnv: assume (rsp_wait_ok);
      end
    end
  end

endmodule
