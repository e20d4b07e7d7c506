AZ@[`{Z09 az@[`{z09 ABC-XYZ

