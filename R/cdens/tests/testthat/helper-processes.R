# An Rscript run in the background whose output goes to a file; its process id.
sys_run_background <- function(rscript, script, output) {
  pid_file <- tempfile()
  system(sprintf("%s %s > %s 2>&1 & echo $! > %s", shQuote(rscript), shQuote(script),
                 shQuote(output), shQuote(pid_file)))
  as.integer(readLines(pid_file))
}

# The lines written so far to `output` (none before the process has made it).
output_lines <- function(output) {
  if (file.exists(output)) readLines(output, warn = FALSE) else character()
}
