package model

import "testing"

func TestMaxMinShare(t *testing.T) {
	for _, c := range []struct {
		total       int
		wants       []int
		level, rest int
		capped      bool
	}{
		{6, []int{10, 1, 10}, 2, 1, true},
		{3, []int{5, 5, 5, 5}, 0, 3, true},
		{10, []int{30, 2, 3}, 5, 0, true},
		{10, []int{2, 3}, 3, 5, false},
		{10, nil, 0, 10, false},
	} {
		level, rest, capped := MaxMinShare(c.total, c.wants)
		if level != c.level || rest != c.rest || capped != c.capped {
			t.Errorf("MaxMinShare(%d, %v) = %d, %d, %v; want %d, %d, %v", c.total, c.wants, level, rest, capped, c.level, c.rest, c.capped)
		}
	}
}
