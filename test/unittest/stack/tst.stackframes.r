
2 frames, 1

3 frames, 1

