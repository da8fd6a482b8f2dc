"""The headline claims of a paper's quick mode, asserted: each claim is printed with its figures
and its tolerance, and the run exits with status 1 when one fails, so that `make test` fails with
it. The quick modes use fixed seeds, so a claim fails only when the code's figures change."""

import sys


class Headline:
    def __init__(self, paper):
        self.paper = paper
        self.claims = []

    def require(self, holds, claim):
        """Records `claim` (a sentence with the figures and the tolerance) and whether it holds."""
        self.claims.append((bool(holds), claim))

    def finish(self):
        """Prints every claim; exits with status 1 naming the failed ones."""
        print(f"\nHeadline checks ({self.paper}, quick mode):")
        for holds, claim in self.claims:
            print(f"- {'ok' if holds else 'FAILED'}: {claim}")
        failed = [claim for holds, claim in self.claims if not holds]
        if not self.claims:
            sys.exit(f"{self.paper}: the quick mode checked no headline figure")
        if failed:
            sys.exit(f"{self.paper}: {len(failed)} headline check(s) failed: " + "; ".join(failed))
