//! A pass: chunk j (lanes jC .. (j+1)C) of every layer of a block, computed from chunk j of the two
//! layers before the block while only three layers of one chunk are live, so that the working set
//! stays in cache however long the numbers grow.

use std::sync::Mutex;

use super::describe::Sources;
use super::lanes::PAYLOAD;
use super::tiles::Tiles;
use crate::hooks::Hooks;
use crate::kernels::{self, Isa};

/// Chunk j of two consecutive layers (the older first), `(states + 1) x C` lanes each (the last chunk
/// is the zero chunk, which the states that read nothing read).
pub(crate) type Chunk = [Vec<u64>; 2];

/// The carries out of the top lane of chunk j of two consecutive layers, one a state: the high bits
/// of a lane, below 2^(64 - [`PAYLOAD`]) (a lane is below 2^64 and keeps its low [`PAYLOAD`] bits).
pub(crate) type Carries = [Vec<u8>; 2];

/// Buffers left by finished passes, to reuse: layer chunks, carry vectors, and tiles' buffers.
#[derive(Default)]
pub(super) struct SpareBuffers {
    pub(super) layers: Vec<Vec<u64>>,
    pub(super) carries: Vec<Carries>,
    pub(super) scratch: Vec<Vec<u64>>,
}

/// The spare buffers of a run, shared by its passes.
pub(super) type Spares = Mutex<SpareBuffers>;

/// What pass j starts from: chunk j of the block's edge layers, and buffers for its carries.
pub(super) struct PassInput {
    pub(super) chunk: Chunk,
    pub(super) spare_carries: Carries,
}

/// What pass j leaves: chunk j of the block's last two layers (normalised), the carries out of its
/// top lane (one per state of each), and chunk j of its targets' values (raw lanes), in order.
pub(super) struct PassResult {
    pub(super) chunk: Chunk,
    pub(super) carries: Carries,
    pub(super) targets: Vec<u64>,
}

/// What every pass of one block reads: the block's description and tiles, the hooks that may stop
/// it, the spare buffers and the instruction set of the kernels.
pub(super) struct PassContext<'a> {
    pub(super) layers: &'a [Sources],
    /// The block's tiles, where its passes run tile after tile (else layer after layer, whole).
    pub(super) tiles: Option<&'a Tiles>,
    pub(super) hooks: Hooks<'a>,
    pub(super) spares: &'a Spares,
    pub(super) isa: Isa,
    /// For a run of residues: the moduli of this pass's chunk, one a lane (`None` for exact lanes).
    pub(super) moduli: Option<&'a [u64]>,
}

impl PassContext<'_> {
    /// Pass j in chunks of `c` lanes (1, 2, 4, 8, 16, 32 or 64): chunk j of every layer of the block, from
    /// chunk j of the two layers before it and the carries out of chunk j - 1 of those layers. A pass
    /// stopped by the hooks returns early, with no target lanes (the caller discards it).
    pub(super) fn pass(&self, c: usize, j: usize, input: PassInput, carry_in: Option<&Carries>) -> PassResult {
        match c {
            1 => self.pass_in::<1>(j, input, carry_in),
            2 => self.pass_in::<2>(j, input, carry_in),
            4 => self.pass_in::<4>(j, input, carry_in),
            8 => self.pass_in::<8>(j, input, carry_in),
            16 => self.pass_in::<16>(j, input, carry_in),
            32 => self.pass_in::<32>(j, input, carry_in),
            64 => self.pass_in::<64>(j, input, carry_in),
            _ => unreachable!("a chunk is 1, 2, 4, 8, 16, 32 or 64 lanes"),
        }
    }

    /// Pass j in chunks of C lanes, of exact lanes (with carries in and normalised at the end) or of
    /// residues modulo this pass's moduli (no carries; a direct move adds to every lane): tile after
    /// tile ([`super::tiles`]), each from the block's first layer to its last in a buffer of its own,
    /// or layer after layer, whole, in three buffers that roll.
    fn pass_in<const C: usize>(&self, j: usize, input: PassInput, carry_in: Option<&Carries>) -> PassResult {
        let moduli: Option<&[u64; C]> = self.moduli.map(|m| m.try_into().expect("C moduli"));
        let PassInput { chunk: [mut older, mut old], spare_carries } = input;
        if let Some([a, b]) = carry_in {
            for (layer, carries) in [(&mut older, a), (&mut old, b)] {
                for (lane0, &carry) in layer.iter_mut().step_by(C).zip(carries) {
                    *lane0 += carry as u64;
                }
            }
        }
        let b = self.layers.len();
        let (chunk, targets) = match self.tiles {
            None => self.rolling::<C>(j, [older, old], moduli),
            // no layer: a block described while the run stopped, with nothing to compute
            Some(_) if b == 0 => ([older, old], Vec::new()),
            Some(tiles) => {
                let mut top = self.layer::<C>(tiles.lens[b - 1]);
                let mut below = match b {
                    1 => Vec::new(), // the old edge layer, once read
                    _ => self.layer::<C>(tiles.lens[b - 2]),
                };
                let mut scratch = self.spares.lock().expect("not poisoned").scratch.pop().unwrap_or_default();
                scratch.resize(scratch.len().max(tiles.widest * C), 0);
                let targets = self.tiled::<C>(tiles, j, [&older, &old], [&mut below, &mut top], &mut scratch, moduli);
                if b == 1 {
                    below = std::mem::take(&mut old);
                }
                let mut spares = self.spares.lock().expect("not poisoned");
                spares.layers.extend([older, old].into_iter().filter(|v| v.capacity() > 0));
                spares.scratch.push(scratch);
                drop(spares);
                ([below, top], targets)
            }
        };
        self.finish::<C>(chunk, spare_carries, targets, moduli)
    }

    /// Chunk j of every layer of the block from its two edge layers, a whole layer at a time in three
    /// buffers that roll (older <- old <- the new layer): the block's last two layers and the
    /// targets' lanes (fewer where the hooks stopped the pass).
    fn rolling<const C: usize>(&self, j: usize, edges: Chunk, moduli: Option<&[u64; C]>) -> (Chunk, Vec<u64>) {
        let [mut older, mut old] = edges;
        let mut cur = self.spares.lock().expect("not poisoned").layers.pop().unwrap_or_default();
        let mut targets = Vec::new();
        for layer in self.layers {
            if self.hooks.cancelled() {
                break; // the block's results are discarded
            }
            // the layer's counts, then one zero chunk for the states that read nothing
            let len = layer.len() * C;
            fit(&mut cur, len + C);
            cur.resize(len + C, 0); // every chunk but the zero one is rewritten below
            cur[len..].fill(0);
            let (out, left, right) = (&mut cur[..len], &layer.left, &layer.right);
            match moduli {
                None => {
                    kernels::sum_layer::<C>(self.isa, out, &old, &older, left, right);
                    if j == 0 {
                        for &(s, d) in &layer.direct {
                            out[s as usize * C] += d as u64;
                        }
                    }
                }
                Some(moduli) => {
                    kernels::sum_layer_mod::<u64, C>(self.isa, out, &old, &older, left, right, moduli);
                    for &(s, d) in &layer.direct {
                        add_direct(&mut out[s as usize * C..(s as usize + 1) * C], d, moduli);
                    }
                }
            }
            for &(_, s) in &layer.targets {
                targets.extend_from_slice(&cur[s as usize * C..(s as usize + 1) * C]);
            }
            // roll: older <- old <- cur, and the oldest buffer is reused
            std::mem::swap(&mut older, &mut old);
            std::mem::swap(&mut old, &mut cur);
        }
        self.spares.lock().expect("not poisoned").layers.push(cur);
        ([older, old], targets)
    }

    /// A spare buffer for a layer of `states` chunks of C lanes and its zero chunk (the only one
    /// zero: a layer's tiles write every other). Cost O(1), and O(states) where it grows.
    fn layer<const C: usize>(&self, states: usize) -> Vec<u64> {
        let len = (states + 1) * C;
        let mut buffer = self.spares.lock().expect("not poisoned").layers.pop().unwrap_or_default();
        fit(&mut buffer, len);
        buffer.resize(len, 0);
        buffer.truncate(len);
        buffer[states * C..].fill(0);
        buffer
    }

    /// Every tile of the block, chunk j, from the `edges` (older first) into `out` (the layer below
    /// the top, unless the block has one layer, and the top layer; zero chunks last, already zero),
    /// in `scratch`: the targets' lanes, in order (none where the hooks stopped the pass).
    fn tiled<const C: usize>(
        &self,
        tiles: &Tiles,
        j: usize,
        edges: [&[u64]; 2],
        out: [&mut Vec<u64>; 2],
        scratch: &mut [u64],
        moduli: Option<&[u64; C]>,
    ) -> Vec<u64> {
        let b = self.layers.len();
        let [edge_older, edge_old] = edges;
        let [below, top] = out;
        let mut targets = vec![0u64; self.layers.iter().map(|l| l.targets.len()).sum::<usize>() * C];
        for tile in &tiles.tiles {
            if self.hooks.cancelled() {
                return Vec::new(); // the block's results are discarded
            }
            scratch[..C].fill(0); // the zero chunk
            let mut direct = tile.direct.iter().peekable();
            for i in 0..b {
                let states = tile.states_of(i, b);
                let (left, right) = (&tile.left[states.clone()], &tile.right[states]);
                let (before, out): (&[u64], &mut [u64]) = match i + 1 == b {
                    true => (&*scratch, &mut top[tile.top.start as usize * C..tile.top.end as usize * C]),
                    false => {
                        let (before, rest) = scratch.split_at_mut(tile.starts[i] as usize * C);
                        (before, &mut rest[..(tile.starts[i + 1] - tile.starts[i]) as usize * C])
                    }
                };
                let old = if i == 0 { edge_old } else { before };
                let older = match i {
                    0 => edge_older,
                    1 => edge_old,
                    _ => before,
                };
                match moduli {
                    None => {
                        kernels::sum_layer::<C>(self.isa, out, old, older, left, right);
                        while let Some(&(_, at, d)) = direct.next_if(|d| d.0 as usize == i) {
                            if j == 0 {
                                out[at as usize * C] += d as u64;
                            }
                        }
                    }
                    Some(moduli) => {
                        kernels::sum_layer_mod::<u64, C>(self.isa, out, old, older, left, right, moduli);
                        while let Some(&(_, at, d)) = direct.next_if(|d| d.0 as usize == i) {
                            add_direct(&mut out[at as usize * C..(at as usize + 1) * C], d, moduli);
                        }
                    }
                }
            }
            let at = |i: u32, s: u32| match i as usize + 1 == b {
                true => &top[(tile.top.start + s) as usize * C..][..C],
                false => &scratch[(tile.starts[i as usize] + s) as usize * C..][..C],
            };
            for &(place, i, s) in &tile.targets {
                targets[place as usize * C..][..C].copy_from_slice(at(i, s));
            }
            if b >= 2 {
                let first = tile.starts[b - 2] as usize;
                for &(g, q) in &tile.below {
                    below[g as usize * C..][..C].copy_from_slice(&scratch[(first + q as usize) * C..][..C]);
                }
            }
        }
        targets
    }

    /// The pass's end: its last two layers normalised (exact lanes) and the carries out of them.
    fn finish<const C: usize>(
        &self,
        chunk: Chunk,
        spare_carries: Carries,
        targets: Vec<u64>,
        moduli: Option<&[u64; C]>,
    ) -> PassResult {
        let [mut older, mut old] = chunk;
        let carries = match moduli {
            None => {
                let [mut a, mut b] = spare_carries;
                kernels::normalise::<C, PAYLOAD>(self.isa, &mut older, &mut a);
                kernels::normalise::<C, PAYLOAD>(self.isa, &mut old, &mut b);
                [a, b]
            }
            Some(_) => spare_carries, // residues carry nothing
        };
        // the chunk is kept until the next block's pass: no more room than it uses
        for layer in [&mut older, &mut old] {
            let len = layer.len();
            fit(layer, len);
        }
        PassResult { chunk: [older, old], carries, targets }
    }
}

/// A direct move of `d` (1 or 2) added to every lane of a chunk of residues modulo `moduli`.
fn add_direct(lanes: &mut [u64], d: u8, moduli: &[u64]) {
    for (lane, &m) in lanes.iter_mut().zip(moduli) {
        // 2 mod 2 (a padding lane) is 0
        *lane = kernels::ModLane::add_mod(*lane, d as u64 % m, m);
    }
}

/// A pass's buffer has room for at most a `ROOM`-th more words than its layer's: grown by doubling,
/// or left by a wider layer, a buffer would hold up to twice the words of the layers a run keeps
/// (its edge layers, whole); room for each block's growth alone (a few states) would move every
/// buffer every block.
pub(super) const ROOM: usize = 16;

/// Gives `buffer` room for `len` words and a [`ROOM`]-th more where it has less, and no more than it
/// uses where it has over a [`ROOM`]-th more.
fn fit(buffer: &mut Vec<u64>, len: usize) {
    if buffer.capacity() < len {
        buffer.reserve_exact(len + len / ROOM - buffer.len());
    } else if buffer.capacity() - len > len / ROOM {
        buffer.truncate(len);
        buffer.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::{ROOM, fit};

    /// A buffer grows with room for a sixteenth more, keeps what it has within that room, and gives
    /// back the rest of a wider layer's.
    #[test]
    fn a_buffer_keeps_at_most_a_sixteenth_of_room() {
        let mut buffer: Vec<u64> = Vec::new();
        fit(&mut buffer, 1600);
        assert!((1600..=1600 + 1600 / ROOM).contains(&buffer.capacity()), "{}", buffer.capacity());
        buffer.resize(1600, 7);
        let room = buffer.capacity();
        fit(&mut buffer, 1650); // within the room: not moved
        assert_eq!(buffer.capacity(), room);
        fit(&mut buffer, 1000); // a narrower layer: the rest given back
        assert!((1000..=1000 + 1000 / ROOM).contains(&buffer.capacity()), "{}", buffer.capacity());
        assert_eq!(buffer, vec![7; 1000], "the words kept are the buffer's first");
    }
}
