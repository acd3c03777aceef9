from waslint.core.failure import install_termination_handler

install_termination_handler()  # SIGTERM unwinds from the first moment: a run interrupted in start-up cleans up too

from waslint.cli import main  # noqa: E402

main()
