from client_cli.cli import main

raise SystemExit(main())
