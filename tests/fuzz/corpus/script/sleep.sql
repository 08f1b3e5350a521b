\sleep 10 ms
