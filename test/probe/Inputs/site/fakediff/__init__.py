# A stand-in for a third-party diffusion package (installed under site-packages in real life).
