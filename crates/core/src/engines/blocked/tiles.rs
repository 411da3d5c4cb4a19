//! A block cut into tiles: ranges of its top layer's states, each with every state of the block's
//! lower layers that they read, so that a pass computes a tile from the block's first layer to its
//! last while the tile's lanes stay in the level-2 cache, and reads the block's edge layers from
//! L3 or memory once.
//!
//! **Why it works.** State g of layer k reads (g xor R) - 1 of layer k - 1 and (g xor L) - 1 of layer
//! k - 2 (bottom-up; top-down alike with (h + 1) xor e), and L of layer k is 1 + (R of layer k xor R
//! of layer k - 1) (docs/math.md): an aligned range of states reads an aligned range of the layer
//! before, shifted by one, by either path. The states a range of the top layer reads through a
//! block of B layers are thus about B ranges of its width, plus a few at their borders; the plan's
//! positions keep the order of g, so a tile is a range of positions.
//!
//! **Tiles.** The top layer's states are cut into ranges of positions; the states of the layer below
//! it (the block's other output) each belong to the tile of the first top state that reads it (those
//! no top state reads, to the tile of the state before them); a target belongs to the tile at its
//! place in its layer. A tile computes what it owns and everything that reads down to the block's
//! edge layers, in layers: states at the border of two tiles are computed by both (the same values),
//! and a state nothing reads is computed by none. The lower layers' states of a tile get positions
//! of their own, in a buffer of the tile (position 0 is a zero chunk); the top layer's range is
//! written where it stands in the block's output, the owned states of the layer below copied there.
//!
//! Built once a block, from its source positions, for every pass (every chunk of lanes) of it.
//! Cost: O(states the tiles compute) with a few random reads each.

use std::ops::Range;

use super::describe::Sources;

/// One tile of a block ([`Tiles`]).
#[derive(Debug, Default)]
pub(crate) struct Tile {
    /// The tile's positions in each layer below the top: layer i's states at `starts[i]..starts[i +
    /// 1]` (`starts[0]` is 1: position 0 is the zero chunk).
    pub(crate) starts: Vec<u32>,
    /// Where each state of the tile reads from, layer after layer (the lower layers', then the top
    /// range's): the tile's own position, or in layer 0 (left and right) and layer 1 (right) the
    /// position in the edge layer read, whose zero chunk is its last.
    pub(crate) left: Vec<u32>,
    pub(crate) right: Vec<u32>,
    /// The top layer's states the tile computes: positions in the layer.
    pub(crate) top: Range<u32>,
    /// The states of the layer below the top the tile owns: their positions in the layer, and their
    /// indices within the tile's states of that layer.
    pub(crate) below: Vec<(u32, u32)>,
    /// (layer, index within the tile's states of the layer, 1 or 2): the direct moves the tile computes.
    pub(crate) direct: Vec<(u32, u32, u8)>,
    /// (the target's place among the block's targets, layer, index within the tile's states of the
    /// layer): the targets the tile owns.
    pub(crate) targets: Vec<(u32, u32, u32)>,
}

impl Tile {
    /// The tile's states of layer `i` of a block of `layers` layers, as indices of `left` and
    /// `right`. Cost O(1).
    pub(crate) fn states_of(&self, i: usize, layers: usize) -> Range<usize> {
        let first = self.starts[0] as usize;
        match i + 1 == layers {
            true => {
                let below = self.starts[i] as usize - first;
                below..below + self.top.len()
            }
            false => self.starts[i] as usize - first..self.starts[i + 1] as usize - first,
        }
    }

    /// The positions of the tile's buffer: its lower layers' states and the zero chunk.
    pub(crate) fn positions(&self) -> usize {
        *self.starts.last().expect("a start a layer") as usize
    }
}

/// A block cut into tiles, with what they compute altogether.
#[derive(Debug, Default)]
pub(crate) struct Tiles {
    pub(crate) tiles: Vec<Tile>,
    /// The non-zero states of each layer of the block.
    pub(crate) lens: Vec<usize>,
    /// The most positions a tile's buffer has.
    pub(crate) widest: usize,
    /// The states the tiles compute (those at the tiles' borders counted in each) and the block's.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) computed: u64,
    pub(crate) states: u64,
}

/// The tiles of a block whose layers' sources are `layers`, after edge layers of `edge_lens`
/// states, each tile's buffer about `positions` positions at most (one tile at least a top state).
///
/// Cost: O(states computed), with two random reads and writes a state.
pub(crate) fn tiles(layers: &[Sources], edge_lens: [usize; 2], positions: usize) -> Tiles {
    let b = layers.len();
    if b == 0 {
        return Tiles::default();
    }
    // layer ids: 0 and 1 the edge layers, i + 2 layer i of the block
    let lens: Vec<usize> = edge_lens.iter().copied().chain(layers.iter().map(Sources::len)).collect();
    let top = b + 1;
    let states: usize = lens[2..].iter().sum();
    // a tile's states, with some room for the borders
    let count = (states + states / 8).div_ceil(positions.max(1)).clamp(1, lens[top].max(1));
    let width = lens[top].div_ceil(count).max(1);
    let count = lens[top].div_ceil(width).max(1);
    let tile_of_top = |r: usize| (r / width).min(count - 1);
    // the owner of each state of the layer below the top: the tile of its first reader, else of the
    // state before it
    let mut below: Vec<Vec<u32>> = vec![Vec::new(); count];
    if b >= 2 {
        let mut owner = vec![u32::MAX; lens[b]];
        for (r, &s) in layers[b - 1].left.iter().enumerate() {
            if let Some(o) = owner.get_mut(s as usize).filter(|o| **o == u32::MAX) {
                *o = tile_of_top(r) as u32;
            }
        }
        let mut last = 0;
        for (s, o) in owner.iter().enumerate() {
            last = if *o == u32::MAX { last } else { *o };
            below[last as usize].push(s as u32);
        }
    }
    // each target to the tile at its place: (place, layer id, position)
    let mut owned_targets: Vec<Vec<(u32, usize, u32)>> = vec![Vec::new(); count];
    let mut place = 0u32;
    for (i, layer) in layers.iter().enumerate() {
        for &(_, s) in &layer.targets {
            let len = lens[i + 2];
            if (s as usize) < len {
                let tile = match i + 1 == b {
                    true => tile_of_top(s as usize),
                    false => (s as usize * count / len).min(count - 1),
                };
                owned_targets[tile].push((place, i + 2, s));
            } // else a zero count: its lanes stay zero
            place += 1;
        }
    }
    let mut builder = Builder::new(&lens);
    let mut tiles = Vec::with_capacity(count);
    for t in 0..count {
        let range = (t * width).min(lens[top])..((t + 1) * width).min(lens[top]);
        tiles.push(builder.tile(layers, range, &below[t], &owned_targets[t]));
    }
    let widest = tiles.iter().map(Tile::positions).max().unwrap_or(1);
    let computed = tiles.iter().map(|t| t.left.len() as u64).sum();
    Tiles { tiles, lens: lens[2..].to_vec(), widest, computed, states: states as u64 }
}

/// What building the tiles of a block reuses from tile to tile, per layer id: the tile's states
/// (a bit a state, so that they come out in order), the index of each among the tile's states of
/// its layer, and the tile's states in a list.
struct Builder {
    bits: Vec<Vec<u64>>,
    index: Vec<Vec<u32>>,
    need: Vec<Vec<u32>>,
}

impl Builder {
    fn new(lens: &[usize]) -> Builder {
        Builder {
            bits: lens.iter().map(|&l| vec![0; l.div_ceil(64)]).collect(),
            index: lens.iter().map(|&l| vec![0; l]).collect(),
            need: vec![Vec::new(); lens.len()],
        }
    }

    /// State `s` of layer id `id` taken by the tile, unless it is an edge layer's or a zero count
    /// (`s` the layer's length).
    #[inline(always)]
    fn take(&mut self, id: usize, s: u32) {
        if id >= 2 && (s as usize) < self.index[id].len() {
            self.bits[id][s as usize / 64] |= 1 << (s % 64);
        }
    }

    /// The states of layer id `id` taken, in order, to `need[id]` (with their indices), the bits
    /// cleared for the next tile.
    fn collect(&mut self, id: usize) {
        let (bits, need, index) = (&mut self.bits[id], &mut self.need[id], &mut self.index[id]);
        need.clear();
        for (w, word) in bits.iter_mut().enumerate().filter(|(_, w)| **w != 0) {
            let mut rest = std::mem::take(word);
            while rest != 0 {
                let s = 64 * w as u32 + rest.trailing_zeros();
                rest &= rest - 1;
                index[s as usize] = need.len() as u32;
                need.push(s);
            }
        }
    }

    /// Where the tile finds state `s` of layer id `id` that one of its states reads: the edge
    /// layer's own position, 0 (the zero chunk) for a zero count, else the tile's position of it
    /// (`starts` the first of each lower layer's).
    #[inline(always)]
    fn place(&self, id: usize, s: u32, starts: &[u32]) -> u32 {
        match id {
            0 | 1 => s,
            _ if s as usize >= self.index[id].len() => 0,
            _ => starts[id - 2] + self.index[id][s as usize],
        }
    }

    /// A tile: the `top` range of the top layer, the states `below` of the layer below it, the
    /// `targets` (place, layer id, position) and all that they read within the block.
    fn tile(&mut self, layers: &[Sources], top: Range<usize>, below: &[u32], targets: &[(u32, usize, u32)]) -> Tile {
        let b = layers.len();
        for r in top.clone() {
            self.take(b + 1, r as u32);
        }
        if b >= 2 {
            for &s in below {
                self.take(b, s);
            }
        }
        for &(_, id, s) in targets {
            self.take(id, s);
        }
        // from the top down: a layer's states are all taken once the two above it are read
        for i in (0..b).rev() {
            let id = i + 2;
            self.collect(id);
            let states = std::mem::take(&mut self.need[id]);
            for &s in &states {
                self.take(id - 1, layers[i].left[s as usize]);
                self.take(id - 2, layers[i].right[s as usize]);
            }
            self.need[id] = states;
        }
        for id in 0..2 {
            self.bits[id].fill(0); // edge layers are read where they stand
        }
        // positions: 0 the zero chunk, then the lower layers' states in turn
        let mut starts = Vec::with_capacity(b);
        let mut at = 1u32;
        for id in 2..b + 1 {
            starts.push(at);
            at += self.need[id].len() as u32;
        }
        starts.push(at);
        let computed: usize = self.need[2..].iter().map(Vec::len).sum();
        let (mut left, mut right) = (Vec::with_capacity(computed), Vec::with_capacity(computed));
        let mut direct = Vec::new();
        for (i, layer) in layers.iter().enumerate() {
            let id = i + 2;
            for &s in &self.need[id] {
                left.push(self.place(id - 1, layer.left[s as usize], &starts));
                right.push(self.place(id - 2, layer.right[s as usize], &starts));
            }
            for &(s, d) in &layer.direct {
                if self.need[id].binary_search(&s).is_ok() {
                    direct.push((i as u32, self.index[id][s as usize], d));
                }
            }
        }
        let targets =
            targets.iter().map(|&(place, id, s)| (place, (id - 2) as u32, self.index[id][s as usize])).collect();
        let below = match b >= 2 {
            true => below.iter().map(|&s| (s, self.index[b][s as usize])).collect(),
            false => Vec::new(),
        };
        let top = top.start as u32..top.end as u32;
        Tile { starts, left, right, top, below, direct, targets }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random layers of a block (sources anywhere in the two layers before, a zero count now and
    /// then): every top state is in exactly one tile's range, every state of the layer below owned
    /// by exactly one tile, every target by one, and each tile's sources lie within its own
    /// positions or the edge layers; more tiles for a smaller buffer.
    #[test]
    fn tiles_own_each_output_once_and_read_only_what_they_computed() {
        let seed = 0x711e_5eed;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let edge_lens = [40usize, 50];
        let lens = [60usize, 70, 65, 80, 90];
        let mut layers: Vec<Sources> = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            let old = if i == 0 { edge_lens[1] } else { lens[i - 1] };
            let older = match i {
                0 => edge_lens[0],
                1 => edge_lens[1],
                _ => lens[i - 2],
            };
            // a source of the layer's length is the zero chunk
            let left = (0..len).map(|_| rng.below(old as u64 + 1) as u32).collect();
            let right = (0..len).map(|_| rng.below(older as u64 + 1) as u32).collect();
            let direct = vec![(3, 1), (len as u32 - 1, 2)];
            let targets = vec![(i, rng.below(len as u64) as u32), (i + 10, len as u32)];
            layers.push(Sources { left, right, direct, targets });
        }
        let b = lens.len();
        let whole = tiles(&layers, edge_lens, 1 << 20);
        assert_eq!(whole.tiles.len(), 1);
        assert!(whole.computed <= whole.states, "one tile computes each state at most once (none that nothing reads)");
        let cut = tiles(&layers, edge_lens, 64);
        assert!(cut.tiles.len() > 4, "{} tiles", cut.tiles.len());
        assert!(cut.computed > whole.computed, "borders are computed twice");
        let mut top = vec![0; lens[b - 1]];
        let mut below = vec![0; lens[b - 2]];
        let mut targets = vec![0; 2 * b];
        for tile in &cut.tiles {
            tile.top.clone().for_each(|r| top[r as usize] += 1);
            tile.below.iter().for_each(|&(s, _)| below[s as usize] += 1);
            tile.targets.iter().for_each(|&(place, _, _)| targets[place as usize] += 1);
            for i in 0..b {
                let states = tile.states_of(i, b);
                let own = tile.positions() as u32;
                for (&l, &r) in tile.left[states.clone()].iter().zip(&tile.right[states]) {
                    let old_edge = i == 0;
                    let older_edge = i <= 1;
                    assert!(if old_edge { l as usize <= edge_lens[1] } else { l < tile.starts[i] && l < own });
                    let older_len = if i == 0 { edge_lens[0] } else { edge_lens[1] };
                    assert!(if older_edge { r as usize <= older_len } else { r < tile.starts[i - 1] });
                }
            }
        }
        assert!(top.iter().all(|&n| n == 1), "{top:?}");
        assert!(below.iter().all(|&n| n == 1), "{below:?}");
        // the targets at a zero count (the second of each layer) belong to no tile
        let owned: Vec<u32> = (0..2 * b).map(|p| if p % 2 == 0 { 1 } else { 0 }).collect();
        assert_eq!(targets, owned);
    }
}
