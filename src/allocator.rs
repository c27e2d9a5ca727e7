//! The binary's global allocator: mimalloc, asked for plain blocks when
//! plain blocks are aligned enough.
//!
//! The `mimalloc` crate's allocator passes every request to
//! `mi_malloc_aligned`, whatever its alignment. That path tests the
//! alignment, and it takes mimalloc's slow aligned path when the block
//! asked for is larger than a small one or when the page has no free block
//! at hand: a call spent about 5,000 instructions there (callgrind,
//! BENCHMARKS.md). Every mimalloc block is aligned to a word, and mimalloc's
//! own `mi_realloc_aligned` hands alignments up to a word to its plain
//! path for that reason (`alloc-aligned.c`); this does the same for every
//! request.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every mimalloc block has.
const WORD: usize = std::mem::size_of::<usize>();

pub struct Mimalloc;

// SAFETY: each method passes the request to the mimalloc function that
// meets it: the plain functions when the alignment is at most a word (every
// mimalloc block has it), the aligned ones otherwise; a block is freed by
// `mi_free` whichever function gave it, as mimalloc documents.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: a size and a power-of-two alignment, as `Layout` keeps them.
        unsafe {
            if layout.align() <= WORD {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if layout.align() <= WORD {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`'s alignment,
        // which the new block keeps.
        unsafe {
            if layout.align() <= WORD {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_their_alignment_and_keep_their_bytes_through_realloc() {
        let mut blocks = Vec::new();
        for size in (1..600).chain([1023, 1024, 1025, 4096, 70_000, 1 << 20]) {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a layout of non-zero size; the block is written
                // within its size and freed once, below.
                unsafe {
                    let zeroed = Mimalloc.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "{layout:?}");
                    assert!(
                        std::slice::from_raw_parts(zeroed, size)
                            .iter()
                            .all(|&b| b == 0)
                    );
                    Mimalloc.dealloc(zeroed, layout);
                    let block = Mimalloc.alloc(layout);
                    assert_eq!(block as usize % align, 0, "{layout:?}");
                    for i in 0..size {
                        block.add(i).write(i as u8);
                    }
                    blocks.push((block, layout));
                }
            }
        }
        for (block, layout) in blocks {
            let new_size = layout.size() * 3 + 5;
            // SAFETY: each block came from `alloc` with `layout`.
            unsafe {
                let moved = Mimalloc.realloc(block, layout, new_size);
                assert_eq!(moved as usize % layout.align(), 0, "{layout:?}");
                for i in 0..layout.size() {
                    assert_eq!(moved.add(i).read(), i as u8, "{layout:?}");
                }
                let new_layout = Layout::from_size_align(new_size, layout.align()).unwrap();
                Mimalloc.dealloc(moved, new_layout);
            }
        }
    }
}
