"""Paper figures: their drawing helpers, captions and colours."""
