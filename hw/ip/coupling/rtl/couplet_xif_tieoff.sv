// The coprocessor side of CV-X-IF when no accelerator is attached.
//
// It is ready for every offload and accepts none of them, so the core raises an illegal
// instruction exception for custom opcodes, exactly as a core without X-IF would. It never
// issues memory requests or results.
module couplet_xif_tieoff (
  if_xif.coproc_compressed xif_compressed_if,
  if_xif.coproc_issue      xif_issue_if,
  if_xif.coproc_commit     xif_commit_if,
  if_xif.coproc_mem        xif_mem_if,
  if_xif.coproc_mem_result xif_mem_result_if,
  if_xif.coproc_result     xif_result_if
);

  assign xif_compressed_if.compressed_ready = 1'b1;
  assign xif_compressed_if.compressed_resp  = '0;  // accept = 0

  assign xif_issue_if.issue_ready = 1'b1;
  assign xif_issue_if.issue_resp  = '0;            // accept = 0

  assign xif_mem_if.mem_valid = 1'b0;
  assign xif_mem_if.mem_req   = '0;

  assign xif_result_if.result_valid = 1'b0;
  assign xif_result_if.result       = '0;

  // Commit and memory results only matter to a coprocessor that accepted something.
  logic unused_inputs;
  assign unused_inputs = ^{xif_compressed_if.compressed_valid, xif_compressed_if.compressed_req,
                           xif_issue_if.issue_valid, xif_issue_if.issue_req,
                           xif_commit_if.commit_valid, xif_commit_if.commit,
                           xif_mem_if.mem_ready, xif_mem_if.mem_resp,
                           xif_mem_result_if.mem_result_valid, xif_mem_result_if.mem_result,
                           xif_result_if.result_ready};

endmodule
