strict

