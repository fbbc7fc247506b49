package contextbuilder

import (
	"slices"
	"testing"
)

// budgetSamples returns budgets from 1 to 2,000,000: every value up to
// 20,000, then a stride, and every value within 64 of each threshold.
func budgetSamples(reserve int) []int {
	var out []int
	for b := 1; b <= 20000; b++ {
		out = append(out, b)
	}
	for b := 20001; b <= 2_000_000; b += 97 {
		out = append(out, b)
	}
	for _, th := range []int{reserve, reserve * MaxReserveShare, reserve*MaxReserveShare + 1, 8192, 8193, 9000, 32768, 128000, 200000, 1_000_000, 2_000_000} {
		for d := -64; d <= 64; d++ {
			if b := th + d; b >= 1 && b <= 2_000_000 {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The request limit never shrinks when the budget grows, stays within the
// budget and above zero, and the reserve takes at most a quarter of it.
func TestTokenLimitNeverShrinksWhenTheBudgetGrows(t *testing.T) {
	for _, reserve := range []int{0, 1, 400, 4096, 8192, 16384, 32768, 100000, 1_500_000} {
		prev := 0
		for _, b := range budgetSamples(reserve) {
			bud := Budget{TokenBudget: b, ReserveForResponse: reserve}
			l := bud.TokenLimit()
			if l < prev {
				t.Fatalf("reserve %d: budget %d gives %d, less than %d for a smaller budget", reserve, b, l, prev)
			}
			if l <= 0 || l > b {
				t.Fatalf("reserve %d: budget %d gives limit %d", reserve, b, l)
			}
			if r := bud.Reserve(); r > b/MaxReserveShare || r > reserve || l+r != b {
				t.Fatalf("reserve %d: budget %d: reserve %d, limit %d", reserve, b, r, l)
			}
			prev = l
		}
	}
}

func TestTokenLimitExamples(t *testing.T) {
	for _, tc := range []struct{ budget, reserve, want int }{
		{8192, 8192, 6144}, {8193, 8192, 6145}, {9000, 8192, 6750}, {32768, 8192, 24576},
		{32769, 8192, 24577}, {128000, 8192, 119808}, {6000, 400, 5600}, {1, 8192, 1}, {4, 8192, 3},
	} {
		if got := (Budget{TokenBudget: tc.budget, ReserveForResponse: tc.reserve}).TokenLimit(); got != tc.want {
			t.Errorf("budget %d reserve %d: limit %d, want %d", tc.budget, tc.reserve, got, tc.want)
		}
	}
}
