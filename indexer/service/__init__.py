"""Stage 8, service: one data directory opened by one process, and kept in line with its folders.

    config      what a library is opened with (`LibraryConfig`)
    lock        the writer's lock: one process writes an index, the others read it
    open_index  the files of an index opened (store, vectors, model, search), and the writer's
                role taken over when the process that held it is gone
    writing     what only the writer does: reconciling the folders, the vector lane, rebuilding
                what was found damaged
    follow      following the folders in the background: file events, take-over, retries,
                repairs, a pause while the disk is full
    status      one snapshot of what the service is doing, for the map's notes and the CLI

It imports every stage; only `indexer.library`, the facade, imports it.
"""
