# The package's functions are the registry's: every method of the engine has its function, whose
# arguments are the method's options under their R names with the defaults of the C++ options,
# and its Rd page. Walking the registry (not a list of methods) shows that a method added to it
# appears in R with its options.

fixed_arguments <- c("x", "y", "data", "weights", "subset", "na.action", "verbose")

test_that("every registered method has its function with its options and their defaults", {
  methods <- cdens_methods()
  expect_gt(length(methods), 15L)
  namespace <- asNamespace("cdens")
  for (entry in methods) {
    expected_name <- paste0(if (entry$family == "density") "kde_" else "cde_",
                            gsub("-", "_", entry$name))
    expect_identical(entry$r_function, expected_name)
    expect_true(entry$r_function %in% getNamespaceExports("cdens"), label = entry$r_function)
    arguments <- formals(get(entry$r_function, namespace))
    offered <- Filter(function(option) option$offered, entry$options)
    r_names <- vapply(offered, `[[`, "", "r_name")
    expect_identical(setdiff(names(arguments), fixed_arguments), r_names,
                     label = entry$r_function)
    for (option in offered) {
      default <- eval(arguments[[option$r_name]])
      label <- paste(entry$r_function, option$r_name)
      if (option$none_is_default || option$type %in% c("seed", "threads") ||
          (option$type == "columns" && !length(option$default))) {
        expect_null(default, label = label)
      } else {
        expect_equal(as.vector(default), as.vector(option$default), label = label)
      }
    }
    expect_identical("weights" %in% names(arguments), entry$sample_weights,
                     label = entry$r_function)
  }
})

test_that("an option's R name is its name, the thread count n_jobs", {
  for (entry in cdens_methods()) {
    for (option in Filter(function(option) option$offered, entry$options)) {
      expect_identical(option$r_name, if (option$name == "threads") "n_jobs" else option$name)
    }
  }
})

test_that("every method function has its Rd page, with every option", {
  database <- tools::Rd_db("cdens")
  for (entry in cdens_methods()) {
    page <- database[[paste0("generated_", entry$r_function, ".Rd")]]
    expect_false(is.null(page), label = entry$r_function)
    text <- paste(as.character(page), collapse = "")
    for (option in Filter(function(option) option$offered, entry$options)) {
      expect_match(text, paste0("\\item{", option$r_name, "}"), fixed = TRUE,
                   label = paste(entry$r_function, option$r_name))
    }
  }
})

test_that("the package's version is the library's", {
  expect_identical(as.character(utils::packageVersion("cdens")), cdens_version())
})
