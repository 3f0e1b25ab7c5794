package model

import "slices"

// MaxMinShare shares total out among wants, max-min fair: a want no
// larger than level is met in full, the larger ones are held to level,
// and rest units are left over (fewer than the wants held to level;
// whoever shares them decides who gets one more). capped reports whether
// any want was held to level; when none was, level is the largest want
// and rest what was not asked for. wants is sorted in place.
func MaxMinShare(total int, wants []int) (level, rest int, capped bool) {
	slices.Sort(wants)
	left := total
	for i, w := range wants {
		even := left / (len(wants) - i)
		if w > even {
			return even, left - even*(len(wants)-i), true
		}
		left -= w
	}
	if len(wants) > 0 {
		level = wants[len(wants)-1]
	}
	return level, left, false
}
