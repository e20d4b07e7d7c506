same

