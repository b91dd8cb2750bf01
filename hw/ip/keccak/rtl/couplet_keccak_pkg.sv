// Keccak-f[1600] (FIPS 202, section 3): state types, constants and the five step mappings,
// each written once as a pure function on a whole state so that the round module and any
// later datapath share one definition.
//
// Lane (x, y) is state bits [64*(x+5*y) +: 64], and bit z of a lane is its bit z. With this
// layout byte i of the FIPS 202 byte string is state bits [8*i +: 8], so a little-endian
// 32-bit word w of the state is bits [32*w +: 32] and no byte swapping is needed anywhere.
package couplet_keccak_pkg;

  localparam int unsigned KeccakLaneW  = 64;
  localparam int unsigned KeccakStateW = 25 * KeccakLaneW;
  localparam int unsigned KeccakRounds = 24;
  localparam int unsigned KeccakWords  = KeccakStateW / 32;  // 32-bit words, as software sees them

  typedef logic [KeccakLaneW-1:0]  keccak_lane_t;
  typedef logic [KeccakStateW-1:0] keccak_state_t;
  typedef logic [4:0][KeccakLaneW-1:0] keccak_plane_t;  // a lane per x: theta's column parities
  typedef logic [4:0]              keccak_round_idx_t;  // 0 .. KeccakRounds-1

  // RC[i] of iota (FIPS 202 Algorithm 6), i = round index.
  localparam keccak_lane_t RoundConstants [KeccakRounds] = '{
    64'h0000_0000_0000_0001, 64'h0000_0000_0000_8082, 64'h8000_0000_0000_808A,
    64'h8000_0000_8000_8000, 64'h0000_0000_0000_808B, 64'h0000_0000_8000_0001,
    64'h8000_0000_8000_8081, 64'h8000_0000_0000_8009, 64'h0000_0000_0000_008A,
    64'h0000_0000_0000_0088, 64'h0000_0000_8000_8009, 64'h0000_0000_8000_000A,
    64'h0000_0000_8000_808B, 64'h8000_0000_0000_008B, 64'h8000_0000_0000_8089,
    64'h8000_0000_0000_8003, 64'h8000_0000_0000_8002, 64'h8000_0000_0000_0080,
    64'h0000_0000_0000_800A, 64'h8000_0000_8000_000A, 64'h8000_0000_8000_8081,
    64'h8000_0000_0000_8080, 64'h0000_0000_8000_0001, 64'h8000_0000_8000_8008
  };

  // Rotation offset of rho for lane (x, y), indexed by x + 5*y (one row per y).
  localparam int unsigned RhoOffsets [25] = '{
     0,  1, 62, 28, 27,
    36, 44,  6, 55, 20,
     3, 10, 43, 25, 39,
    41, 45, 15, 21,  8,
    18,  2, 61, 56, 14
  };

  function automatic int unsigned keccak_lane_idx(int unsigned x, int unsigned y);
    return x + 5 * y;
  endfunction

  function automatic keccak_lane_t keccak_lane(keccak_state_t s, int unsigned x, int unsigned y);
    return s[KeccakLaneW * keccak_lane_idx(x, y) +: KeccakLaneW];
  endfunction

  // Rotation towards higher z; the modulo keeps the right shift below 64 for n = 0.
  function automatic keccak_lane_t keccak_rotl(keccak_lane_t a, int unsigned n);
    return (a << n) | (a >> ((KeccakLaneW - n) % KeccakLaneW));
  endfunction

  // theta in two parts: the parity of each column (one lane of parities per x), then every bit
  // gets the parities of the columns to its left and (one z back) right. The round computes
  // the parities in a module of their own (couplet_keccak_parity, which says why).
  function automatic keccak_plane_t keccak_column_parity(keccak_state_t s);
    keccak_plane_t parity;
    for (int unsigned x = 0; x < 5; x++) begin
      parity[x] = keccak_lane(s, x, 0) ^ keccak_lane(s, x, 1) ^ keccak_lane(s, x, 2)
                ^ keccak_lane(s, x, 3) ^ keccak_lane(s, x, 4);
    end
    return parity;
  endfunction

  function automatic keccak_state_t keccak_theta_apply(keccak_state_t s, keccak_plane_t parity);
    keccak_state_t t;
    for (int unsigned y = 0; y < 5; y++) begin
      for (int unsigned x = 0; x < 5; x++) begin
        t[KeccakLaneW * keccak_lane_idx(x, y) +: KeccakLaneW] =
            keccak_lane(s, x, y) ^ parity[(x + 4) % 5] ^ keccak_rotl(parity[(x + 1) % 5], 1);
      end
    end
    return t;
  endfunction

  // rho: each lane rotated by its own offset.
  function automatic keccak_state_t keccak_rho(keccak_state_t s);
    keccak_state_t t;
    for (int unsigned i = 0; i < 25; i++) begin
      t[KeccakLaneW * i +: KeccakLaneW] =
          keccak_rotl(s[KeccakLaneW * i +: KeccakLaneW], RhoOffsets[i]);
    end
    return t;
  endfunction

  // pi: lane (x, y) takes lane (x + 3y, x).
  function automatic keccak_state_t keccak_pi(keccak_state_t s);
    keccak_state_t t;
    for (int unsigned y = 0; y < 5; y++) begin
      for (int unsigned x = 0; x < 5; x++) begin
        t[KeccakLaneW * keccak_lane_idx(x, y) +: KeccakLaneW] = keccak_lane(s, (x + 3 * y) % 5, x);
      end
    end
    return t;
  endfunction

  // chi: the only non-linear step, along each row.
  function automatic keccak_state_t keccak_chi(keccak_state_t s);
    keccak_state_t t;
    for (int unsigned y = 0; y < 5; y++) begin
      for (int unsigned x = 0; x < 5; x++) begin
        t[KeccakLaneW * keccak_lane_idx(x, y) +: KeccakLaneW] =
            keccak_lane(s, x, y) ^ (~keccak_lane(s, (x + 1) % 5, y) & keccak_lane(s, (x + 2) % 5, y));
      end
    end
    return t;
  endfunction

  // iota: the round constant into lane (0, 0).
  function automatic keccak_state_t keccak_iota(keccak_state_t s, keccak_round_idx_t round_idx);
    keccak_state_t t;
    t = s;
    t[KeccakLaneW-1:0] = s[KeccakLaneW-1:0] ^ RoundConstants[round_idx];
    return t;
  endfunction

endpackage
