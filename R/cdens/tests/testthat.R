library(testthat)
library(cdens)

test_check("cdens")
