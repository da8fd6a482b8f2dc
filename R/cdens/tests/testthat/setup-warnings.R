# The fits' warnings (grid edges, repeated rows of faithful) stay in their reports; the tests that
# are about them turn them on (test-fit.R).
options(cdens.fit_warnings = FALSE)
