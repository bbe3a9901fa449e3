import Foundation

/// Byte-wise comparisons and searches of strings' UTF-8, on their contiguous storage when
/// they have it (native strings do). Written by hand because the standard library's generic
/// `elementsEqual`/`lexicographicallyPrecedes` over `String.UTF8View` walk the views an index
/// at a time, and Foundation's `contains(_:)` on strings goes through `NSString` and a
/// non-literal search: together about 8 % of a worker's CPU on a drain in `perf`.
package enum UTF8Bytes {
    /// Whether `lhs` and `rhs` hold the same bytes.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let result = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let known = result ?? nil { return known }
        return lhs.utf8.count == rhs.utf8.count && lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether `lhs` orders before `rhs`, byte by byte (PostgreSQL's "C" collation).
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let result = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
        if let known = result ?? nil { return known }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Whether `needle`'s bytes occur in `haystack`'s (an empty needle occurs everywhere).
    package static func contains(_ haystack: String, _ needle: String) -> Bool {
        firstOffset(of: needle, in: haystack, from: 0) != nil
    }

    /// The byte offset of the first occurrence of `needle` in `haystack` at or after `start`.
    package static func firstOffset(of needle: String, in haystack: String, from start: Int) -> Int? {
        var needle = needle
        var haystack = haystack
        needle.makeContiguousUTF8()
        haystack.makeContiguousUTF8()
        return haystack.utf8.withContiguousStorageIfAvailable { hay in
            needle.utf8.withContiguousStorageIfAvailable { pin -> Int? in
                guard start >= 0, start <= hay.count else { return nil }
                guard !pin.isEmpty else { return start }
                guard hay.count >= pin.count, start <= hay.count - pin.count else { return nil }
                let first = pin[0]
                var index = start
                let last = hay.count - pin.count
                while index <= last {
                    if hay[index] == first && memcmp(hay.baseAddress! + index, pin.baseAddress!, pin.count) == 0 { return index }
                    index += 1
                }
                return nil
            } ?? nil
        } ?? nil
    }
}
