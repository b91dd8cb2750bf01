// One round of Keccak-f[1600], purely combinational: iota(chi(pi(rho(theta(state))))).
// round_idx_i (0 .. 23) selects the round constant; larger values are not used by the core.
// theta's column parities come from couplet_keccak_parity, a module kept whole in synthesis
// (it says why).
module couplet_keccak_round
  import couplet_keccak_pkg::*;
(
  input  keccak_state_t     state_i,
  input  keccak_round_idx_t round_idx_i,
  output keccak_state_t     state_o
);

  keccak_plane_t parity;
  couplet_keccak_parity u_parity (
    .state_i  (state_i),
    .parity_o (parity)
  );

  assign state_o = keccak_iota(
      keccak_chi(keccak_pi(keccak_rho(keccak_theta_apply(state_i, parity)))), round_idx_i);

endmodule
